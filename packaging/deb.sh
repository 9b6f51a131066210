#!/usr/bin/env bash
# packaging/deb.sh OUT_DIR — `make deb`: containment-lab_VERSION_ARCH.deb
# built with dpkg-deb from a staged `make install PREFIX=/usr`, done in a
# copy of the sources under OUT_DIR/deb so the developer's own build (made
# for /usr/local) is left alone. What goes in:
#   /usr/bin/containment-lab                  the lab, stripped
#   /usr/share/containment-lab/               snippets, the microvm guest init,
#                                             the JSON schema
#   /etc/containment-lab/layers.ini           a conffile; the installed default
#                                             the lab looks for in its share
#                                             folder is a link to it
#   /etc/apparmor.d/containment-lab           a conffile: the AppArmor profile,
#                                             loaded by postinst only where the
#                                             kernel restricts user namespaces
#   man page, bash and zsh completion, docs, copyright, changelog
set -eu
cd "$(dirname "$0")/.."
OUT=$(realpath -m "${1:-build}")
STAGE=$OUT/deb
VERSION=$(sed -n 's/^#define LAB_VERSION "\(.*\)"/\1/p' src/engine/lab.h)
ARCH=$(dpkg --print-architecture)
DEB=$OUT/containment-lab_${VERSION}_${ARCH}.deb
for t in dpkg-deb dpkg-shlibdeps; do
	command -v "$t" >/dev/null || { echo "make deb: needs $t (apt-get install dpkg-dev)" >&2; exit 1; }
done

rm -rf "$STAGE"
mkdir -p "$STAGE/src" "$STAGE/root"
cp -r Makefile src snippets layers.ini docs completion README.md "$STAGE/src/"
# the date of the last commit, so the same tree gives the same package
DATE=$(git log -1 --format=%cD 2>/dev/null || date -R)
export SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
# linked against the shared libraries, as Debian wants (a static ncurses is
# an embedded library to lintian), their packages found by dpkg-shlibdeps
make -s -C "$STAGE/src" PREFIX=/usr STATIC=0 all >/dev/null
make -s -C "$STAGE/src" PREFIX=/usr STATIC=0 DESTDIR="$STAGE/root" install >/dev/null
make -s -C "$STAGE/src" PREFIX=/usr DESTDIR="$STAGE/root" install-apparmor >/dev/null
R=$STAGE/root
SHARE=$R/usr/share/containment-lab

# layers.ini is the admin's to edit: /etc, with the share folder's name for it
install -d "$R/etc/containment-lab"
mv "$SHARE/layers.ini" "$R/etc/containment-lab/layers.ini"
ln -s /etc/containment-lab/layers.ini "$SHARE/layers.ini"

strip --remove-section=.comment --remove-section=.note --strip-unneeded "$R/usr/bin/containment-lab"
[[ -e $SHARE/vm-init ]] && strip --remove-section=.comment --remove-section=.note "$SHARE/vm-init"
gzip -9n "$R/usr/share/man/man1/containment-lab.1"

DOC=$R/usr/share/doc/containment-lab
install -d "$DOC" "$R/usr/share/lintian/overrides"
install -m 0644 README.md docs/json.md docs/containment-lab.schema.json "$DOC/"
[[ -e docs/ci.md ]] && install -m 0644 docs/ci.md "$DOC/"
cat >"$DOC/copyright" <<COPY
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: containment-lab
Comment: Built from the containment-lab source tree by make deb.

Files: *
Copyright: $(date -u -d "@$SOURCE_DATE_EPOCH" +%Y) the containment-lab authors
License: all-rights-reserved
 The containment-lab authors have not yet published a licence for this
 software; it is packaged for the machines of its own classes and CI.
COPY
printf 'containment-lab (%s) unstable; urgency=medium\n\n  * Built by make deb from the source tree.\n\n -- containment-lab maintainers <maintainers@containment-lab.example>  %s\n' \
	"$VERSION" "$DATE" | gzip -9n >"$DOC/changelog.gz"
cat >"$R/usr/share/lintian/overrides/containment-lab" <<'OVR'
# The microvm rung's guest init runs as PID 1 of a guest that has no
# libraries, and the lab looks for it in its share folder.
containment-lab: statically-linked-binary [usr/share/containment-lab/vm-init]
containment-lab: arch-dependent-file-in-usr-share [usr/share/containment-lab/vm-init]
OVR
[[ -e $SHARE/vm-init ]] || : >"$R/usr/share/lintian/overrides/containment-lab"

# the libraries the binary needs, as dpkg-shlibdeps finds them
mkdir -p "$STAGE/shlibs/debian"
printf 'Source: containment-lab\n\nPackage: containment-lab\nArchitecture: any\n' >"$STAGE/shlibs/debian/control"
SHLIBS=$(cd "$STAGE/shlibs" && dpkg-shlibdeps -O "$R/usr/bin/containment-lab" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
install -d "$R/DEBIAN"
cat >"$R/DEBIAN/control" <<CTRL
Package: containment-lab
Version: $VERSION
Architecture: $ARCH
Maintainer: containment-lab maintainers <maintainers@containment-lab.example>
Installed-Size: $(du -sk --exclude=DEBIAN "$R" | cut -f1)
Depends: ${SHLIBS:+$SHLIBS, }python3
Suggests: runsc, qemu-system-x86, linux-image-amd64, bubblewrap, firejail
Section: utils
Priority: optional
Description: run AI-written code in a layered sandbox, see which layer stops what
 A terminal lab, and a command line for CI, that really runs untrusted
 Python snippets in a Linux sandbox built from four layers you switch on
 and off (Isolation, No-network, Clean-env, Resource-limits) and judges
 from its own evidence whether each attack was contained or escaped.
 .
 containment-lab matrix runs every snippet under all 16 layer sets and
 compares the verdicts with the truth table, as text, JSON, Markdown, TAP,
 JUnit XML or a self-contained HTML page.
CTRL
printf '/etc/containment-lab/layers.ini\n/etc/apparmor.d/containment-lab\n' >"$R/DEBIAN/conffiles"
cat >"$R/DEBIAN/postinst" <<'POST'
#!/bin/sh
# Loads the AppArmor profile where the kernel restricts unprivileged user
# namespaces through AppArmor (Ubuntu 23.10+); elsewhere it is not needed.
set -e
if [ "$1" = configure ] && [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ] &&
	[ -d /sys/kernel/security/apparmor ] && command -v apparmor_parser >/dev/null 2>&1; then
	apparmor_parser -r -T -W /etc/apparmor.d/containment-lab || true
fi
exit 0
POST
chmod 0755 "$R/DEBIAN/postinst"
(cd "$R" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$R/DEBIAN/md5sums"
find "$R" -type d -exec chmod 0755 {} +
dpkg-deb --root-owner-group -Zxz --build "$R" "$DEB" >/dev/null
echo "$DEB"
