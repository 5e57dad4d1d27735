#!/usr/bin/env python3
"""Writes the seed corpora in fuzz/corpus/<target>/ from the samples and the shapes the unit
tests use. Run again after adding samples; libFuzzer runs (`make fuzz`) grow their own corpus in
build-fuzz/corpus and leave these seeds as they are."""
import hashlib, json, os, pathlib, sys
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "corpus"


def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def docs():
    for p in sorted((ROOT / "config").rglob("*.yaml")):
        text = p.read_text()
        for doc in yaml.safe_load_all(text):
            if doc is not None:
                yield p, text, doc


meta = {"name": "web", "namespace": "default", "uid": "u-1", "resourceVersion": "7",
        "generation": 2, "labels": {"app": "web"}, "annotations": {"a": "b"},
        "creationTimestamp": "2026-11-23T14:00:00Z", "finalizers": ["flotilla.io/cleanup"],
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                             "uid": "u-0", "controller": True}]}
deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
              "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "app", "image": "nginx",
                                             "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}},
              "status": {"replicas": 3, "readyReplicas": 2, "availableReplicas": 2,
                         "observedGeneration": 2,
                         "conditions": [{"type": "Available", "status": "True",
                                         "lastTransitionTime": "2026-11-23T14:00:00Z"}]}}
pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
       "spec": {"nodeName": "n1", "containers": [{"name": "app", "image": "nginx"}]},
       "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                      "reason": "Unschedulable"}]}}
node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]}}
status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
          "message": "deployments.apps \"web\" not found", "reason": "NotFound",
          "details": {"name": "web", "group": "apps", "kind": "deployments"}, "code": 404}
conflict = dict(status, message="the object has been modified", reason="Conflict", code=409)
gone = dict(status, message="too old resource version: 1 (5)", reason="Expired", code=410)
lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta,
         "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15,
                  "renewTime": "2026-11-23T14:00:00.000000Z"}}
crd_null = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "names": {"plural": "widgets", "kind": "Widget"},
                     "scope": "Namespaced", "versions": [{"name": "v1", "served": True, "storage": True}]},
            "status": {"conditions": None}}
event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "web.1", "namespace": "default"},
         "involvedObject": {"kind": "ResourceBinding", "name": "web"}, "reason": "Scheduled",
         "message": "m", "type": "Normal", "count": 2}
review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
          "request": {"uid": "r-1", "kind": {"group": "flotilla.io", "version": "v1alpha1",
                                              "kind": "PropagationPolicy"},
                      "resource": {"group": "flotilla.io", "version": "v1alpha1",
                                   "resource": "propagationpolicies"},
                      "operation": "CREATE", "namespace": "default", "name": "p",
                      "userInfo": {"username": "alice"}, "object": None, "oldObject": None,
                      "dryRun": False}}
objects = [deployment, pod, node, status, conflict, lease, crd_null, event, review,
           {"metadata": None, "spec": None, "status": None}, {"items": None}, [], None, 1.5]
samples = [doc for _, _, doc in docs()]

# --- json_codec: every object as JSON
for o in objects + samples:
    write("json_codec", json.dumps(o))
for s in samples:
    if s.get("kind") == "PropagationPolicy" or s.get("kind") == "ClusterPropagationPolicy":
        write("json_codec", json.dumps(s.get("spec", {}).get("placement", {})))

# --- admission: AdmissionReviews carrying each sample
for i, s in enumerate(samples):
    r = json.loads(json.dumps(review))
    r["request"]["kind"]["kind"] = s.get("kind", "")
    r["request"]["object"] = s
    write("admission", bytes([i % 16]) + json.dumps(r).encode())
r = json.loads(json.dumps(review))
r["request"]["operation"] = "UPDATE"
r["request"]["oldObject"] = samples[0]
write("admission", b"\x01" + json.dumps(r).encode())
write("admission", b"\x00{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}")
write("admission", b"\x00not json")

# --- yaml: the sample files, and a few tricky documents
for p, text, _ in docs():
    write("yaml", text)
for t in ["a: &x [1, 2]\nb: *x\n", "---\n---\n# c\n", "a: 'quoted: x'\nb: \"\\u00e9\"\nc: |\n  x\n  y\n",
          "- 1\n- 1.5\n- true\n- null\n- ~\n- 0x1f\n- 1e3\n- '007'\n", "a: {b: [c, {d: e}]}\n",
          "? complex\n: key\n", "a: !!str 1\nb: !!binary aGk=\n"]:
    write("yaml", t)

# --- quantity / duration / time / selector / base64 strings
for t in ["100m", "1.5Gi", "1e3", "-1", "0.1", "9223372036854775807", "8Ei", "12e-9", "1E", "1k",
          "0.000000001", "123456789012345678901234567890", "+5", "1.", ".5", "5Mi", "1ki",
          "1h30m", "300ms", "-1.5h", "0", "1us", "2562047h47m16.854775807s",
          "2026-11-23T14:00:00Z", "2026-11-23T14:00:00.123456Z", "2026-11-23T14:00:00+01:00",
          "app=web,env!=prod", "tier in (a,b),!x", "x", "a notin (b)", "k==v", "a.b/c=d",
          "aGVsbG8=", "aGk", "////", ""]:
    write("quantity", t)

# --- patch: target, blank line, patch
dep = json.dumps(deployment)
for p in [{"spec": {"replicas": 5}}, {"metadata": {"labels": {"app": None}}},
          [{"op": "replace", "path": "/spec/replicas", "value": 2}],
          [{"op": "add", "path": "/metadata/labels/x", "value": "y"},
           {"op": "remove", "path": "/status"}, {"op": "test", "path": "/kind", "value": "Deployment"},
           {"op": "move", "from": "/metadata/annotations", "path": "/metadata/a2"},
           {"op": "copy", "from": "/spec/replicas", "path": "/spec/r2"}],
          [{"op": "add", "path": "/spec/template/spec/containers/-", "value": {"name": "b"}}],
          {"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "x"},
                                                         {"name": "c2", "$patch": "delete"}]}}}},
          {"spec": {"template": {"spec": {"$deleteFromPrimitiveList/x": ["a"],
                                          "containers": [{"$patch": "replace"}]}}}},
          {"metadata": {"finalizers": ["a", "b"], "$patch": "replace"}}]:
    write("patch", dep + "\n\n" + json.dumps(p))
write("patch", "{}\n\n[]")
write("patch", "[1,2]\n\n{\"a\":1}")

# --- watch_decoder: a chunking byte, then a stream of events
def ev(t, o):
    return json.dumps({"type": t, "object": o})
stream = "\n".join([ev("ADDED", deployment), ev("MODIFIED", pod), ev("DELETED", node),
                    ev("BOOKMARK", {"kind": "Deployment", "metadata": {"resourceVersion": "9"}}),
                    ev("ERROR", gone)]) + "\n"
for c in [0, 1, 3, 7, 16]:
    write("watch_decoder", bytes([c]) + stream.encode())
write("watch_decoder", b"\x05" + ev("ADDED", deployment).encode())  # cut short (no newline)
write("watch_decoder", b"\x02{\"type\":\"ADDED\",\"object\":null}\n{\"type\":\"WHAT\"}\n")
write("watch_decoder", b"\x00" + ev("ADDED", deployment).encode() * 3)

# --- kubeconfig: YAML kubeconfigs, and Secrets as JSON
kc = {"apiVersion": "v1", "kind": "Config", "current-context": "member1",
      "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:6443",
                                             "certificate-authority-data": "aGk=",
                                             "insecure-skip-tls-verify": False}}],
      "users": [{"name": "u", "user": {"token": "t", "client-certificate": "cert.pem",
                                       "client-key-data": "aGk="}}],
      "contexts": [{"name": "member1", "context": {"cluster": "c", "user": "u", "namespace": "ns"}}]}
write("kubeconfig", yaml.safe_dump(kc))
kc2 = json.loads(json.dumps(kc))
kc2["users"][0]["user"] = {"exec": {"command": "x"}}
write("kubeconfig", yaml.safe_dump(kc2))
write("kubeconfig", json.dumps(kc))
import base64
for data in [{"token": base64.b64encode(b"t").decode(), "caBundle": "aGk="},
             {"kubeconfig": base64.b64encode(yaml.safe_dump(kc).encode()).decode()},
             {"token": "!!!"}]:
    write("kubeconfig", json.dumps({"apiVersion": "v1", "kind": "Secret",
                                    "metadata": {"name": "s"}, "data": data}))
for p, text, doc in docs():
    if doc.get("kind") == "Secret":
        write("kubeconfig", json.dumps(doc))

# --- kube_response: code byte, flag byte, Retry-After line, body
for code, flag, retry, body in [(2, 0, "", status), (6, 0, "", conflict), (7, 0, "", gone),
                                (11, 1, "3", dict(status, code=429, reason="TooManyRequests")),
                                (12, 0, "", "<html>bad gateway</html>"), (14, 1, "Wed, 21 Oct 2015 07:28:00 GMT", ""),
                                (0, 0, "", deployment), (10, 0, "", dict(status, code=422, reason="Invalid",
                                 details={"causes": [{"field": "spec.replicas", "message": "m", "reason": "FieldValueInvalid"}]}))]:
    b = body if isinstance(body, str) else json.dumps(body)
    write("kube_response", bytes([code, flag]) + (retry + "\n" + b).encode())

# --- extender: filter and prioritize responses
for r in [{"clusters": ["member1", "member2"], "failedClusters": {"member3": "too small"}},
          {"clusterNames": ["member1"], "failedClusters": {}, "error": ""},
          {"error": "extender is down"}, {"clusters": None}, {"clusterNames": ["nowhere"]},
          [{"host": "member1", "score": 7}, {"host": "member2", "score": 11}, {"host": "x", "score": 5}],
          [{"host": "member1", "score": 1.5}], {}, []]:
    write("extender", json.dumps(r))

# --- sim_request: webhook answer, then requests
NUL = "\0"
def req(method, target, ctype="", body=""):
    return method + " " + target + (" " + ctype if ctype else "") + "\n" + (body if isinstance(body, str) else json.dumps(body))
answer = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                     "response": {"uid": "", "allowed": True}})
cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}, "data": {"a": "b"}}
dep_create = json.loads(json.dumps(deployment))
dep_create["metadata"] = {"name": "web", "namespace": "default", "labels": {"app": "web"}}
dep_create.pop("status")
seqs = [
    [req("GET", "/api/v1/namespaces/default/configmaps")],
    [req("POST", "/api/v1/namespaces/default/configmaps", "application/json", cm),
     req("PATCH", "/api/v1/namespaces/default/configmaps/c", "application/merge-patch+json", {"data": {"x": "y"}}),
     req("PATCH", "/api/v1/namespaces/default/configmaps/c", "application/json-patch+json",
         [{"op": "add", "path": "/data/z", "value": "1"}]),
     req("PUT", "/api/v1/namespaces/default/configmaps/c", "application/json", cm),
     req("DELETE", "/api/v1/namespaces/default/configmaps/c")],
    [req("POST", "/apis/apps/v1/namespaces/default/deployments", "application/json", dep_create),
     req("PATCH", "/apis/apps/v1/namespaces/default/deployments/web", "application/strategic-merge-patch+json",
         {"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "x"}]}}}}),
     req("PATCH", "/apis/apps/v1/namespaces/default/deployments/web?fieldManager=f&force=true",
         "application/apply-patch+yaml", dep_create),
     req("PUT", "/apis/apps/v1/namespaces/default/deployments/web/status", "application/json", deployment),
     req("GET", "/apis/apps/v1/namespaces/default/deployments/web/scale"),
     req("GET", "/apis/apps/v1/deployments?labelSelector=app%3Dweb&limit=1"),
     req("GET", "/apis/apps/v1/namespaces/default/deployments?watch=true&resourceVersion=0")],
    [req("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", crd_null),
     req("POST", "/apis/example.com/v1/namespaces/default/widgets", "application/json",
         {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})],
    [req("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", "application/json",
         {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
          "metadata": {"name": "v"}, "webhooks": [{"name": "v.example.com", "admissionReviewVersions": ["v1"],
          "sideEffects": "None", "clientConfig": {"url": "https://127.0.0.1:1/v"},
          "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}]}]}),
     req("POST", "/api/v1/namespaces/default/configmaps", "application/json", cm)],
    [req("GET", "/api"), req("GET", "/apis"), req("GET", "/version"), req("GET", "/openapi/v2"),
     req("GET", "/api/v1/namespaces/default/configmaps", "", "") + "",
     req("POST", "/api/v1/namespaces/default/serviceaccounts/default/token", "application/json",
         {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 600}}),
     req("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "application/json",
         {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
          "spec": {"resourceAttributes": {"verb": "list", "resource": "pods"}}})],
]
for s in samples:
    if isinstance(s, dict) and s.get("kind") == "CustomResourceDefinition":
        seqs.append([req("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", s)])
for seq in seqs:
    write("sim_request", answer + NUL + NUL.join(seq))
write("sim_request", "not an admission review" + NUL + req("POST", "/api/v1/namespaces", "application/json",
      {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}}))
# Regressions: the inputs that found defects (docs/fuzzing.md), as the sim receives them.
write("sim_request", answer + NUL + req("PATCH", "/api/v1/namespaces/default/configmaps/c?fieldManager=f",
                                        "application/apply-patch+yaml", ","))
write("sim_request", answer + NUL + req("POST", "/api/v1/namespaces/default/configmaps",
                                        "application/yaml", "data:\n  a: 1e309\n"))
for t in [",", "- a\n,", "1e309", "--\xb8\n---"]:
    write("yaml", t.encode("latin-1"))
write("quantity", "12345678901290345678901234567890123456890")
write("quantity", "3027-01-01T00:00:00Z")
print("corpora written to", OUT)
