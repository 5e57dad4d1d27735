// Kubernetes objects of the control plane itself: coordination.k8s.io Lease,
// admission.k8s.io AdmissionReview, apiextensions.k8s.io CustomResourceDefinition.
#pragma once

#include "api/meta_types.h"

namespace flotilla::api {

// ---- coordination.k8s.io/v1 ----
struct LeaseSpec {
  std::string holderIdentity;
  std::optional<int32_t> leaseDurationSeconds;
  std::string acquireTime;  // RFC 3339 with microseconds (MicroTime)
  std::string renewTime;
  std::optional<int32_t> leaseTransitions;
};

struct Lease {
  std::string apiVersion = "coordination.k8s.io/v1";
  std::string kind = "Lease";
  ObjectMeta metadata;
  LeaseSpec spec;
};

// ---- admission.k8s.io/v1 ----
struct GroupVersionKind {
  std::string group;
  std::string version;
  std::string kind;
};
struct GroupVersionResource {
  std::string group;
  std::string version;
  std::string resource;
};
struct UserInfo {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  boost::json::object unknownFields;  // extra
};

struct AdmissionRequest {
  std::string uid;
  GroupVersionKind kind;
  GroupVersionResource resource;
  std::string subResource;
  std::optional<GroupVersionKind> requestKind;
  std::optional<GroupVersionResource> requestResource;
  std::string name;
  std::string namespace_;
  std::string operation;  // CREATE | UPDATE | DELETE | CONNECT
  UserInfo userInfo;
  boost::json::value object;     // the object as sent, kept opaque until decoded by kind
  boost::json::value oldObject;  // on UPDATE and DELETE
  std::optional<bool> dryRun;
  boost::json::value options;
};

struct AdmissionResponse {
  std::string uid;
  bool allowed = false;
  std::optional<Status> status;
  std::string patchType;  // "JSONPatch" when patch is set
  std::string patch;      // base64 of an RFC 6902 patch
  std::vector<std::string> warnings;
  std::map<std::string, std::string> auditAnnotations;
};

struct AdmissionReview {
  std::string apiVersion = "admission.k8s.io/v1";
  std::string kind = "AdmissionReview";
  std::optional<AdmissionRequest> request;
  std::optional<AdmissionResponse> response;
};

// ---- apiextensions.k8s.io/v1 (as far as Flotilla and flotilla-sim need) ----
struct CustomResourceDefinitionNames {
  std::string plural;
  std::string singular;
  std::string kind;
  std::string listKind;
  std::vector<std::string> shortNames;
  std::vector<std::string> categories;
};

struct CustomResourceColumnDefinition {
  std::string name;
  std::string type;
  std::string format;
  std::string description;
  int32_t priority = 0;
  std::string jsonPath;
};

struct CustomResourceValidation {
  boost::json::value openAPIV3Schema;  // JSONSchemaProps, kept as JSON
};

struct CustomResourceSubresources {
  std::optional<boost::json::object> status;  // present (even as {}) enables /status
  boost::json::value scale;
};

struct CustomResourceDefinitionVersion {
  std::string name;
  bool served = false;
  bool storage = false;
  bool deprecated = false;
  std::optional<CustomResourceValidation> schema;
  std::optional<CustomResourceSubresources> subresources;
  std::vector<CustomResourceColumnDefinition> additionalPrinterColumns;
};

struct CustomResourceDefinitionSpec {
  std::string group;
  CustomResourceDefinitionNames names;
  std::string scope;  // Namespaced | Cluster
  std::vector<CustomResourceDefinitionVersion> versions;
  boost::json::object unknownFields;  // conversion, preserveUnknownFields
};

struct CustomResourceDefinitionStatus {
  std::vector<Condition> conditions;
  CustomResourceDefinitionNames acceptedNames;
  std::vector<std::string> storedVersions;
};

struct CustomResourceDefinition {
  std::string apiVersion = "apiextensions.k8s.io/v1";
  std::string kind = "CustomResourceDefinition";
  ObjectMeta metadata;
  CustomResourceDefinitionSpec spec;
  CustomResourceDefinitionStatus status;
};

}  // namespace flotilla::api
