#!/usr/bin/env python3
"""The chaos suite's checker (issue #16): the fleet's state against what the inputs ask for.

It knows nothing of Flotilla's code. From the inputs alone (each workload's policy and replicas,
and which were deleted) it computes what must run where, reads the host and the members as JSON
(kubectl get -o json), and lists every difference:

  lost       a workload the inputs keep has no Deployment, binding or placement on the host
  placement  a binding's placement is not the policy's: Duplicated puts R on every member;
             Divided by weights 2:1:1 puts at most ceil(R*w/4) on each member, R in total
  status     a binding is not Scheduled=True and FullyApplied=True for its current generation
  duplicate  more than one member Deployment for one (workload, cluster)
  missing    a target cluster without the workload's Deployment, or with other replicas
  orphan     a Flotilla Deployment on a member for a deleted workload or a cluster not targeted
  emptied    (from the binding watch) a placement became empty while its workload existed
  follower   (when HOST_DIR has MEMBER-configmaps.json) a workload's ConfigMap NAME-env is not
             on exactly its clusters, or the shared one not on exactly the union of them

Usage: chaos_check.py INPUTS HOST_DIR WATCH_LOG
  INPUTS     lines "NAME POLICY REPLICAS" (POLICY dup or div) or "NAME deleted"; the last line for
             a name wins
  HOST_DIR   host-deployments.json, host-bindings.json, member1.json, member2.json, member3.json
  WATCH_LOG  lines "EVENT NAME CLUSTERS..." from a watch of the bindings
Prints "converged" and exits 0, or prints the differences (at most 20) and exits 1.
"""
import json
import math
import os
import sys

MEMBERS = ["member1", "member2", "member3"]
WEIGHTS = {"member1": 2, "member2": 1, "member3": 1}
BINDING_ANNOTATION = "flotilla.io/binding"


def expected_shares(policy, replicas):
    """Acceptable replicas per member: a set of values for each cluster."""
    if policy == "dup":
        return {m: {replicas} for m in MEMBERS}
    # Weighted division hands out shares rounded up, cluster by cluster (KubeAdmiral's planner:
    # 5 replicas at 2:1:1 can be 3:0:2), so a cluster holds at most its share rounded up, and the
    # shares add up to R (checked by the caller).
    total = sum(WEIGHTS.values())
    return {m: set(range(0, math.ceil(replicas * WEIGHTS[m] / total) + 1)) for m in MEMBERS}


def condition(obj, kind):
    for c in obj.get("status", {}).get("conditions") or []:
        if c.get("type") == kind:
            return c
    return {}


def main():
    inputs_path, state_dir, watch_log = sys.argv[1:4]
    wanted = {}
    with open(inputs_path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[1] == "deleted":
                wanted[parts[0]] = None
            else:
                wanted[parts[0]] = (parts[1], int(parts[2]))

    def load(name):
        with open(os.path.join(state_dir, name)) as f:
            return json.load(f).get("items") or []

    host = {d["metadata"]["name"]: d for d in load("host-deployments.json")}
    bindings = {b["metadata"]["name"]: b for b in load("host-bindings.json")}
    members = {m: load(m + ".json") for m in MEMBERS}
    problems = []

    placements = {}
    for name, want in sorted(wanted.items()):
        if want is None:
            if name in host:
                problems.append(f"deleted {name} still has a host Deployment")
            continue
        policy, replicas = want
        if name not in host:
            problems.append(f"lost: {name} has no Deployment on the host")
            continue
        rb = bindings.get(name)
        if rb is None:
            problems.append(f"lost: {name} has no ResourceBinding")
            continue
        placement = {c["name"]: c.get("replicas", 0) for c in rb.get("spec", {}).get("clusters") or []}
        placement = {c: n for c, n in placement.items() if n > 0}
        placements[name] = placement
        if rb.get("spec", {}).get("replicas") != replicas:
            problems.append(f"status: {name} binding wants {rb.get('spec', {}).get('replicas')} replicas, "
                            f"the Deployment {replicas}")
        shares = expected_shares(policy, replicas)
        total = replicas * (len(MEMBERS) if policy == "dup" else 1)
        if sum(placement.values()) != total or any(
                placement.get(m, 0) not in shares[m] for m in MEMBERS):
            problems.append(f"placement: {name} ({policy}, {replicas}) is placed {placement}, "
                            f"acceptable per member {shares}")
        generation = rb.get("metadata", {}).get("generation")
        for kind in ("Scheduled", "FullyApplied"):
            c = condition(rb, kind)
            if c.get("status") != "True" or c.get("observedGeneration", generation) != generation:
                problems.append(f"status: {name} {kind}={c.get('status')} ({c.get('reason')}: "
                                f"{c.get('message')}) at generation {c.get('observedGeneration')} of "
                                f"{generation}")

    for m in MEMBERS:
        seen = {}
        for d in members[m]:
            meta = d["metadata"]
            binding = (meta.get("annotations") or {}).get(BINDING_ANNOTATION, "")
            workload = binding.split("/")[-1] if binding else meta["name"]
            seen.setdefault(workload, []).append(d)
        for workload, items in sorted(seen.items()):
            if len(items) > 1:
                problems.append(f"duplicate: {len(items)} Deployments for {workload} on {m}")
            if workload not in placements or m not in placements[workload]:
                if wanted.get(workload) is not None and workload not in placements:
                    continue  # reported above (lost)
                problems.append(f"orphan: {workload} on {m} "
                                f"({'deleted' if wanted.get(workload) is None else 'not targeted'})")
                continue
            got = items[0].get("spec", {}).get("replicas")
            if got != placements[workload][m]:
                problems.append(f"missing: {workload} on {m} runs {got} replicas, placed "
                                f"{placements[workload][m]}")
        for workload, placement in sorted(placements.items()):
            if m in placement and workload not in seen:
                problems.append(f"missing: {workload} has no Deployment on {m} (placed {placement[m]})")

    # Followers (issue #30): NAME-env where NAME runs, "shared" wherever any workload runs.
    if all(os.path.exists(os.path.join(state_dir, m + "-configmaps.json")) for m in MEMBERS):
        want_on = {}
        for workload, placement in placements.items():
            want_on[workload + "-env"] = set(placement)
            want_on.setdefault("shared", set()).update(placement)
        have_on = {}
        for m in MEMBERS:
            for cm in load(m + "-configmaps.json"):
                have_on.setdefault(cm["metadata"]["name"], set()).add(m)
        for name in sorted(set(want_on) | set(have_on)):
            want, have = want_on.get(name, set()), have_on.get(name, set())
            if want != have:
                problems.append(f"follower: ConfigMap {name} is on {sorted(have)}, "
                                f"its workloads on {sorted(want)}")

    placed_once = set()
    if os.path.exists(watch_log):
        with open(watch_log) as f:
            for line in f:
                parts = line.split()
                if len(parts) < 2 or parts[0] == "DELETED":
                    continue
                name, clusters = parts[1], parts[2:]
                if clusters:
                    placed_once.add(name)
                elif name in placed_once and wanted.get(name) is not None:
                    problems.append(f"emptied: the placement of {name} became empty")

    if problems:
        for p in problems[:20]:
            print(p)
        if len(problems) > 20:
            print(f"... and {len(problems) - 20} more")
        return 1
    workloads = sum(1 for w in wanted.values() if w is not None)
    member_deployments = sum(len(members[m]) for m in MEMBERS)
    followers = sum(len(load(m + "-configmaps.json")) for m in MEMBERS
                    if os.path.exists(os.path.join(state_dir, m + "-configmaps.json")))
    print(f"converged: {workloads} workloads, {member_deployments} member Deployments, "
          f"{followers} member ConfigMaps, {len(wanted) - workloads} deleted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
