#!/usr/bin/env bash
# tests/hostcheck_test.sh [BINARY] — a host that gives the lab no usable
# user namespace is said in one line before anything runs, with the
# documented exit status (4), as root and as uid 65534; the commands that
# build nothing still work; the AppArmor profile is written for the
# installed path. Needs root (it makes the user namespace whose
# user.max_user_namespaces is 0; the real sysctl is never touched).
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
T=$(mktemp -d /tmp/cl-hostcheck.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"; suite_cleanup' EXIT
if [[ $(id -u) != 0 ]]; then
	skip "a host without user namespaces" "needs root to make one"
	finish
	exit
fi
LAB=$T/lab-hostcheck-$$
cp "$BIN" "$LAB"
cp -r layers.ini snippets "$T/"
chmod -R a+rX "$T"
cd "$T" || exit 1
before=$(leftovers_snapshot)

# on this host the check says nothing
out=$("$LAB" --config layers.ini run legit --on all 2>&1 >/dev/null); rc=$?
expect_eq "a host that allows user namespaces: legit ran (exit 0)" "$rc" 0
expect_not_contains "a host that allows user namespaces: no word about them" "$out" "user namespace"

for who in 0 65534; do
	for c in "run legit --on all" "run legit --on none" "matrix" "exec --on all -- true" "tui"; do
		# shellcheck disable=SC2086 # the command's words
		err=$($PY "$OLDPWD/tests/nouserns.py" "$who" "$LAB" --config layers.ini $c 2>&1 >/dev/null </dev/null)
		rc=$?
		expect_eq "max_user_namespaces 0, uid $who, $c: exit status 4" "$rc" 4
		expect_eq "max_user_namespaces 0, uid $who, $c: one line" "$(grep -c . <<<"$err")" 1
		expect_contains "max_user_namespaces 0, uid $who, $c: says what is blocked and the fix" "$err" \
			"user.max_user_namespaces is 0), and every run needs one, as root too: nothing can run. Fix: sudo sysctl -w user.max_user_namespaces="
	done
	for c in "list" "twin --on all"; do
		# shellcheck disable=SC2086
		$PY "$OLDPWD/tests/nouserns.py" "$who" "$LAB" --config layers.ini $c >/dev/null 2>&1
		expect_eq "max_user_namespaces 0, uid $who, $c: builds nothing, still works" "$?" 0
	done
done
# audit's wrapper needs no user namespace as root: the check leaves it alone
err=$($PY "$OLDPWD/tests/nouserns.py" 65534 "$LAB" --config layers.ini audit --snippet legit -- '{cmd}' 2>&1 >/dev/null)
expect_contains "max_user_namespaces 0, uid 65534, audit: refused in one line" "$err" "user.max_user_namespaces is 0"

# the AppArmor profile, for the installed path (Ubuntu 23.10+ loads it)
cd "$OLDPWD" || exit 1
make -s install-apparmor DESTDIR="$T/dest" PREFIX=/opt/cl-test >/dev/null
prof=$T/dest/etc/apparmor.d/containment-lab
expect_contains "AppArmor profile names the installed binary" "$(cat "$prof" 2>/dev/null)" "profile containment-lab /opt/cl-test/bin/containment-lab flags=(unconfined) {"
expect_contains "AppArmor profile grants user namespaces" "$(cat "$prof" 2>/dev/null)" $'\n  userns,\n'
if command -v apparmor_parser >/dev/null && [[ -e /etc/apparmor.d/abi/4.0 ]]; then
	check "AppArmor profile parses (apparmor_parser, not loaded)" apparmor_parser -Q -K "$prof"
else
	skip "AppArmor profile parses" "no AppArmor 4 parser here (Debian 12 ships 3.0, which has no userns rule): checked on its text only"
fi
after=$(leftovers_snapshot)
expect_eq "nothing left behind" "$after" "$before"
finish
