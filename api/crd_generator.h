// CustomResourceDefinitions of flotilla.io, generated from the C++ API types so the schema can
// never drift from what the operator decodes. `flotillactl crds --out-dir crds` writes them;
// crd_generator_test.cc fails when crds/*.yaml differ from what the types generate.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <vector>

namespace flotilla::api {

struct GeneratedCrd {
  std::string fileName;  // e.g. "flotilla.io_propagationpolicies.yaml"
  boost::json::value crd;
};

std::vector<GeneratedCrd> generateCrds();

}  // namespace flotilla::api
