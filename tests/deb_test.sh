#!/usr/bin/env bash
# tests/deb_test.sh — the Debian package as a packager and a class's admin
# meet it: `packaging/deb.sh` (what `make deb` runs) builds
# containment-lab_VERSION_ARCH.deb; its control data, conffiles and
# contents; lintian finds no error; then, as root with mmdebstrap, a fresh
# Debian 12 root (Debian's archive only), `apt-get install ./the.deb` in it,
# and the installed lab's matrix run there: all 128 cells as root, and as
# uid 65534 the cells of two snippets. Each step it cannot take here is
# skipped, saying why.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
T=$(mktemp -d /tmp/cl-deb.XXXXXX)
trap 'rm -rf "$T"; suite_cleanup' EXIT
VERSION=$(sed -n 's/^#define LAB_VERSION "\(.*\)"/\1/p' src/engine/lab.h)

if ! command -v dpkg-deb >/dev/null || ! command -v dpkg-shlibdeps >/dev/null; then
	skip "the .deb" "dpkg-deb and dpkg-shlibdeps are needed (apt-get install dpkg-dev)"
	finish
	exit
fi
DEB=$(packaging/deb.sh "$T/out" 2>"$T/build.err" | tail -1)
if [[ -s $DEB ]]; then
	ok "make deb builds $(basename "$DEB")"
else
	not_ok "make deb builds the package" "$(tail -5 "$T/build.err")"
	finish
	exit
fi
expect_eq "the file is containment-lab_VERSION_ARCH.deb" "$(basename "$DEB")" "containment-lab_${VERSION}_$(dpkg --print-architecture).deb"
expect_eq "control: package and version" "$(dpkg-deb -f "$DEB" Package Version | tr '\n' ' ')" "Package: containment-lab Version: $VERSION "
deps=$(dpkg-deb -f "$DEB" Depends)
expect_contains "control: depends on python3 (the snippets' interpreter)" "$deps" "python3"
expect_contains "control: the libraries dpkg-shlibdeps found" "$deps" "libseccomp2"
dpkg-deb --ctrl-tarfile "$DEB" | tar -x -O ./conffiles >"$T/conffiles"
expect_eq "conffiles: layers.ini and the AppArmor profile" "$(tr '\n' ' ' <"$T/conffiles")" \
	"/etc/containment-lab/layers.ini /etc/apparmor.d/containment-lab "
contents=$(dpkg-deb -c "$DEB")
for f in ./usr/bin/containment-lab ./etc/containment-lab/layers.ini ./etc/apparmor.d/containment-lab \
	./usr/share/man/man1/containment-lab.1.gz ./usr/share/bash-completion/completions/containment-lab \
	./usr/share/zsh/vendor-completions/_containment-lab ./usr/share/containment-lab/snippets/legit.py \
	./usr/share/containment-lab/containment-lab.schema.json ./usr/share/doc/containment-lab/copyright \
	"./usr/share/containment-lab/layers.ini -> /etc/containment-lab/layers.ini"; do
	expect_contains "contents: $f" "$contents" "$f"
done
dpkg-deb -x "$DEB" "$T/x"
expect_contains "the profile names the installed binary" "$(cat "$T/x/etc/apparmor.d/containment-lab")" "profile containment-lab /usr/bin/containment-lab"

if command -v lintian >/dev/null; then
	lintian --tag-display-limit 0 "$DEB" >"$T/lintian" 2>&1
	errors=$(grep -E '^E: ' "$T/lintian")
	expect_eq "lintian: no error" "$errors" ""
	echo "# lintian: $(grep -cE '^W: ' "$T/lintian") warnings$(grep -E '^W: ' "$T/lintian" | head -5 | sed 's/^/\n#   /')"
else
	skip "lintian" "lintian is not installed (apt-get install lintian)"
fi

# ---- a fresh Debian 12 root: install, then run ----
if [[ $(id -u) != 0 ]]; then
	skip "install in a fresh root" "needs root (mmdebstrap, pivot_root)"
	finish
	exit
fi
if ! command -v mmdebstrap >/dev/null; then
	skip "install in a fresh root" "mmdebstrap is not installed (apt-get install mmdebstrap)"
	finish
	exit
fi
R=$T/root
MIRROR=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mmdebstrap --variant=apt --include=python3 --customize-hook="copy-in $DEB /tmp" \
	--customize-hook="chroot \"\$1\" apt-get install -y /tmp/$(basename "$DEB")" \
	bookworm "$R" ${MIRROR:-http://deb.debian.org/debian} >"$T/mmdebstrap.log" 2>&1
if [[ $? != 0 ]]; then
	if grep -qiE "could not resolve|failed to fetch|temporary failure|connection" "$T/mmdebstrap.log"; then
		skip "install in a fresh root" "the Debian archive could not be reached: $(grep -iE 'could not resolve|failed to fetch' "$T/mmdebstrap.log" | head -1)"
	else
		not_ok "a fresh bookworm root with apt-get install ./$(basename "$DEB")" "$(tail -8 "$T/mmdebstrap.log")"
	fi
	finish
	exit
fi
ok "apt-get install ./$(basename "$DEB") in a fresh Debian 12 root (mmdebstrap, apt variant)"
expect_contains "apt pulled in the libraries" "$(cat "$T/mmdebstrap.log")" "Setting up containment-lab ($VERSION)"
# in_root CMD: CMD as root of the fresh root, entered with pivot_root in a
# mount namespace of its own (a chroot may not create user namespaces),
# with an environment of its own (the suite's TMPDIR is not in that root)
in_root() {
	mkdir -p "$R/.host"
	unshare --mount --propagation private -- bash -c '
		R=$1; shift
		mount --bind "$R" "$R" && mount -t proc proc "$R/proc" && mount --rbind /sys "$R/sys" &&
		mount --rbind /dev "$R/dev" && mount -t tmpfs -o mode=1777 tmpfs "$R/tmp" &&
		cd "$R" && pivot_root . .host &&
		exec /usr/sbin/chroot . /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
			/bin/sh -c "cd /tmp && $*"' in_root "$R" "$@"
}
expect_eq "the installed lab runs: --version" "$(in_root containment-lab --version)" "containment-lab $VERSION"
expect_contains "the installed lab finds its installed snippets" "$(in_root containment-lab list)" "host-takeover"
expect_contains "the installed lab reads the conffile" "$(in_root containment-lab --config /etc/containment-lab/layers.ini list)" "legit"
out=$(in_root containment-lab matrix --quiet)
rc=$?
expect_eq "the installed lab's matrix as root: exit 0" "$rc" 0
expect_contains "the installed lab's matrix as root: every cell as expected" "$out" "128/128 cells as expected"
out=$(in_root "setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent containment-lab matrix --quiet --snippet legit,host-takeover")
rc=$?
expect_eq "the installed lab's matrix as uid 65534 (legit, host-takeover): exit 0" "$rc" 0
expect_contains "the installed lab's matrix as uid 65534: every cell as expected" "$out" "32/32 cells as expected"
man_out=$(in_root "zcat /usr/share/man/man1/containment-lab.1.gz | head -3")
expect_contains "the man page is installed" "$man_out" "containment-lab(1)"
finish
