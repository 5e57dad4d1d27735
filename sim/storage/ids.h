// Identifiers the API server and the member controllers assign: object UIDs and the random
// suffixes of generateName and of pods a ReplicaSet creates.
#pragma once

#include <string>

namespace flotilla::sim {

std::string newUid();  // RFC 4122 version 4, as Kubernetes' UIDs
// Five characters from kube's alphabet (no vowels, no confusable digits): "x7bqd".
std::string randomNameSuffix();

}  // namespace flotilla::sim
