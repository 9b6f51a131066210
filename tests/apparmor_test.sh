#!/usr/bin/env bash
# tests/apparmor_test.sh — the AppArmor profile (docs/apparmor/) as the
# parser of AppArmor 4 reads it. Ubuntu 23.10+ needs the profile's `userns,`
# rule (kernel.apparmor_restrict_unprivileged_userns=1), which only
# AppArmor 4 knows; Debian 12 ships AppArmor 3, and Ubuntu's kernel is not
# in Debian's archive, so the restriction itself cannot be switched on here.
# What can be checked is that the file we install is one Ubuntu's parser
# accepts: the apparmor and libc6 packages of Debian 13 (trixie, AppArmor
# 4.1) are fetched once from Debian's archive into build/aa4/ (no install:
# dpkg -x), and their parser compiles the profile without loading it (-Q),
# and refuses a copy with the rule misspelt, so the check can fail.
# Skipped, saying why, where the archive cannot be reached. `make
# test-apparmor` (run by .ci/run).
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
A=$PWD/build/aa4
T=$(mktemp -d /tmp/cl-apparmor.XXXXXX)
trap 'rm -rf "$T"; suite_cleanup' EXIT

parser() { "$A/x/usr/lib64/ld-linux-x86-64.so.2" --library-path "$A/x/usr/lib/x86_64-linux-gnu" "$A/x/usr/sbin/apparmor_parser" "$@"; }
if [[ ! -x $A/x/usr/sbin/apparmor_parser ]]; then
	mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/pkgs"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" >"$A/sources.list"
	O=(-o "Dir::Etc::sourcelist=$A/sources.list" -o "Dir::Etc::sourceparts=-" -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache")
	if ! out=$(timeout 300 apt-get "${O[@]}" update -qq 2>&1) ||
		! out=$(cd "$A/pkgs" && timeout 300 apt-get "${O[@]}" download apparmor libc6 2>&1); then
		skip "AppArmor 4 parses the profile" "Debian's archive (trixie's apparmor, libc6) could not be fetched: ${out##*$'\n'}"
		finish
		exit
	fi
	for deb in "$A"/pkgs/*.deb; do dpkg -x "$deb" "$A/x" || exit 1; done
fi
ver=$(parser --version 2>&1 | head -1)
expect_contains "the parser is AppArmor 4 ($ver)" "$ver" "AppArmor parser version 4."

make -s install-apparmor DESTDIR="$T/dest" PREFIX=/usr >/dev/null
prof=$T/dest/etc/apparmor.d/containment-lab
out=$(parser -Q -K -I "$A/x/etc/apparmor.d" --config-file=/dev/null "$prof" 2>&1)
rc=$?
out=$(grep -v "^Cache read/write disabled" <<<"$out")
expect_eq "AppArmor 4's parser compiles the installed profile (userns rule, abi 4.0)" "$rc:$out" "0:"
sed 's/^  userns,$/  usernz,/' "$prof" >"$T/misspelt"
out=$(parser -Q -K -I "$A/x/etc/apparmor.d" --config-file=/dev/null "$T/misspelt" 2>&1)
rc=$?
expect_eq "... and refuses the rule misspelt (the check can fail)" "$rc" 1
expect_contains "... saying where" "$out" "syntax error"
finish
