#!/usr/bin/env bash
# tests/schema_test.sh [BINARY] — the JSON schema (docs/containment-lab.schema.json,
# explained in docs/json.md) against what the lab really writes: list, run
# for every snippet with all layers on and off, a matrix, audit cards (a
# preset, a wrapper that runs nothing, a preset that cannot run here) and
# the error documents of --json; every one carries "format": 1. The schema
# must reject a document that breaks it (so the check is not a formality),
# and docs/json.md must name every field. cli_test.sh and matrix_test.sh
# check the JSON of their own runs the same way (json_schema_check).
# Skipped, saying why, without python3-jsonschema.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
T=$(mktemp -d /tmp/cl-schema.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"; suite_cleanup' EXIT
LAB_CONFIG=$PWD/layers.ini # lab() (lib.sh)
if ! $PY -c 'import jsonschema' 2>/dev/null; then
	skip "the JSON schema" "python3-jsonschema is not installed (apt-get install python3-jsonschema)"
	finish
	exit
fi
before=$(leftovers_snapshot)

check "the schema is a valid Draft 2020-12 schema" $PY -c '
import json, sys, jsonschema
jsonschema.Draft202012Validator.check_schema(json.load(open(sys.argv[1])))' "$JSON_SCHEMA"

# keep: stdin into a document file of its own (called at a pipeline's end)
keep() { cat >"$(mktemp --suffix=.json "$T/doc-XXXXXX")"; }

# ---- what the lab writes ----
lab list --json | keep
mkdir -p "$T/broken/snippets"
cp snippets/legit.py snippets/sales.csv "$T/broken/snippets/"
printf 'print("no header")\n' >"$T/broken/snippets/bad.py"
sed "s|^\[paths\]|[paths]\nsnippets = $T/broken/snippets|" layers.ini >"$T/broken/layers.ini"
"$BIN" --config "$T/broken/layers.ini" list --json | keep
for s in $(lab list | awk '{print $1}'); do
	lab run "$s" --on all --json | keep
	lab run "$s" --on none --json | keep
done
lab --network-mode allowlist run legit-api --on all --json | keep
lab matrix --snippet legit,host-takeover --json | keep
lab audit --json --preset lab --snippet legit --snippet secret-theft | keep
lab audit --json --snippet secret-theft -- /bin/false | keep
for p in srt firejail bwrap runsc; do
	command -v "$p" >/dev/null || { lab audit --json --preset "$p" | keep; break; }
done
# errors: on stdout as JSON when --json was given, the line on stderr too
lab matrix --json --markdown 2>"$T/err.txt" | keep
expect_contains "an error under --json: still said on stderr" "$(cat "$T/err.txt")" "cannot be combined"
lab run no-such-snippet --json 2>/dev/null | keep
lab run legit --on firewall --json 2>/dev/null | keep
lab matrix --json --snippet no-such 2>/dev/null | keep
printf '[limits]\nmemory = 12X\n' >"$T/bad.ini"
"$BIN" --config "$T/bad.ini" run legit --json 2>/dev/null | keep
"$BIN" --config "$T/bad.ini" run legit --json >/dev/null 2>&1
expect_eq "a bad layers.ini under --json: exit 2 still" "$?" 2
lab --json frobnicate 2>/dev/null | keep
json_schema_check "everything the lab wrote with --json" "$T"/doc-*.json
n=$(ls "$T"/doc-*.json | wc -l)
got=$($PY -c '
import json, sys
docs = [json.load(open(p)) for p in sys.argv[1:]]
print(sum(1 for d in docs if d.get("format") == 1), len(docs))' "$T"/doc-*.json)
expect_eq "every document says \"format\": 1" "$got" "$n $n"
errs=$($PY -c '
import json, sys
print(" ".join("%s:%s" % (d["exit"], d["error"].split(":")[0]) for d in map(lambda p: json.load(open(p)), sys.argv[1:]) if "exit" in d and "error" in d and "format" in d and len(d) == 3))' "$T"/doc-*.json)
expect_contains "an unknown snippet under --json: exit 2 in the JSON" "$errs" "2:no snippet named 'no-such-snippet'"
expect_contains "two formats under --json: refused in JSON" "$errs" "2:matrix"

# ---- the schema is strict: broken documents are refused ----
refused=$($PY - "$JSON_SCHEMA" "$T"/doc-*.json <<'PY'
import copy, json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
docs = [json.load(open(p)) for p in sys.argv[2:]]
lst = next(d for d in docs if "snippets" in d)
run = next(d for d in docs if "verdict" in d and "threat" in d)
bad = []
d = copy.deepcopy(run); del d["format"]; bad.append(d)
d = copy.deepcopy(run); d["format"] = 2; bad.append(d)
d = copy.deepcopy(run); d["verdict"] = "SAFE"; bad.append(d)
d = copy.deepcopy(run); d["layers"]["firewall"] = True; bad.append(d)
d = copy.deepcopy(run); d["undocumented"] = 1; bad.append(d)
d = copy.deepcopy(lst); d["snippets"][0]["threat"] = "unknown"; bad.append(d)
print(sum(1 for d in bad if not v.is_valid(d)), len(bad))
PY
)
expect_eq "the schema refuses documents that break it (no format, format 2, unknown verdict, layer, field, threat)" "$refused" "6 6"

# ---- the run's "record": exactly the one field list of src/engine/lab_fields.h ----
diff=$($PY - "$JSON_SCHEMA" src/engine/lab_fields.h "$T" <<'PY'
import glob, json, re, sys
schema = json.load(open(sys.argv[1]))
src = open(sys.argv[2]).read()
listed = set(re.findall(r'^\s*X\("(\w+)"', src, flags=re.M)) | {"cpu_s", "holders"}
in_schema = set(schema["$defs"]["run"]["properties"]["record"]["properties"])
runs = [d for d in (json.load(open(f)) for f in glob.glob(sys.argv[3] + "/doc-*.json")) if "record" in d]
written = set().union(*(set(d["record"]) for d in runs)) if runs else set()
out = []
if len(listed) < 100: out.append("only %d fields found in lab_fields.h" % len(listed))
if not runs: out.append("no run document with a record")
if listed - in_schema: out.append("not in the schema: " + " ".join(sorted(listed - in_schema)))
if in_schema - listed: out.append("not in lab_fields.h: " + " ".join(sorted(in_schema - listed)))
if listed - written: out.append("not written: " + " ".join(sorted(listed - written)))
print("; ".join(out))
PY
)
expect_eq "a run's JSON record holds every field of lab_fields.h's list, the schema names each" "$diff" ""

# ---- docs/json.md names every field of every document ----
missing=$($PY - "$JSON_SCHEMA" docs/json.md <<'PY'
import json, sys
schema, doc = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
names = set()
def walk(s):
    if isinstance(s, dict):
        names.update(s.get("properties", {}))
        for v in s.values():
            walk(v)
    elif isinstance(s, list):
        for v in s:
            walk(v)
walk(schema)
print(" ".join(sorted(n for n in names if "`%s`" % n not in doc)))
PY
)
expect_eq "docs/json.md names every field the schema has" "$missing" ""

sleep 0.2
expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
