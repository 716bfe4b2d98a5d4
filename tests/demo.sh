#!/usr/bin/env bash
# make demo: a whole key-signing party on the bundled fixture keys (the
# organizer's list, sheets and slips; four participants signing each other
# per user ID, encrypted; the signatures imported; the status matrix and
# the party graph), then an analysis of the Arch Linux keyring in
# tests/data (and of the Debian keyring, package debian-keyring).
# Everything goes to demo-out/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ksp="$top/ksp"
out="$top/demo-out"
fx="$top/tests/keyrings"
data="$top/tests/data"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
rm -rf "$out"
mkdir -p "$out"
export KSP_DB="$out/party.db"
homes=$(mktemp -d)
export GNUPGHOME="$homes/organizer"
mkdir -m 700 "$GNUPGHOME"
cleanup() {
	for h in "$homes"/*; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1 || true; done
	rm -rf "$homes"
}
trap cleanup EXIT

# bold commands on a terminal, unless NO_COLOR is set
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s$ %s%s\n' "$bold" "$*" "$plain" | sed -e "s|$top/||g" -e "s|$homes/||g"; }
run() { step "ksp $*"; "$ksp" "$@"; }
fpr_of() { gpg --homedir "$homes/organizer" --with-colons --show-keys "$1" 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}'; }

echo "== The organizer =="
run party init --name "ksp demo party" --date 2027-01-15 --location "Room 1"
step "ksp party add (four participants, then keys ksp must refuse)"
"$ksp" party add "$fx"/party/p1-public.asc "$fx"/party/p2-public.asc "$fx"/party/p3-public.asc \
	"$fx"/party/p4-public.asc
"$ksp" party add "$fx"/erin-expired.asc "$fx"/frank-revoked.asc "$fx"/grace-dsa1024.asc \
	"$fx"/heidi-noemail.asc || echo "(exit $? - refusals are a negative verdict)"
"$ksp" party add "$fx"/alice-secret.asc || echo "(exit $? - secret keys are never stored)"
run party list
run party close -o "$out/list.txt"
step "sha256sum list.txt; openssl dgst -ripemd160 list.txt  (independent check)"
(cd "$out" && sha256sum list.txt && openssl dgst -ripemd160 list.txt)
run party verify-list "$out/list.txt"
run party sheet --format pdf -o "$out/sheet.pdf"
run party sheet --format html -o "$out/sheet.html"
run party slips --qr --for 1 -o "$out/slips.pdf"

echo
echo "== The participants, after the party =="
for i in 1 2 3 4; do
	fpr[$i]=$(fpr_of "$fx/party/p$i-public.asc")
	mkdir -m 700 "$homes/p$i"
	gpg --homedir "$homes/p$i" --batch --quiet --import "$fx/party/p$i-secret.asc" 2>/dev/null
done
for i in 1 2 3 4; do
	step "GNUPGHOME=p$i ksp party sign --as ${fpr[$i]} --all-checked --outbox demo-out/outbox-p$i"
	GNUPGHOME="$homes/p$i" "$ksp" -q party sign --as "${fpr[$i]}" --all-checked --outbox "$out/outbox-p$i" ||
		echo "(exit $?)"
done
for i in 1 2 3 4; do
	step "GNUPGHOME=p$i ksp import demo-out/outbox-*/${fpr[$i]}-*.eml   (p$i decrypts what was sent to it)"
	GNUPGHOME="$homes/p$i" "$ksp" import "$out"/outbox-*/"${fpr[$i]}"-*.eml || echo "(exit $?)"
done
run party status
run party export -o "$out/party-signed.asc"
if "$ksp" help graph >/dev/null 2>&1; then
	run graph --party -T svg -o "$out/party-graph.svg"
fi

echo
echo "== The admin: the Arch Linux keyring =="
arch="$data/archlinux"
if [ -r "$arch/archlinux.gpg" ] || { echo "ksp demo: $arch/archlinux.gpg missing; restore it with: git checkout tests/data" >&2; exit 2; }; then
	export KSP_DB="$out/arch.db"
	run wot load "$arch/archlinux.gpg"
	run wot stats --at 2023-03-21 --top 3
	awk -F'\t' '$2=="main"{print $1}' "$arch/trust-levels.tsv" > "$out/arch-core.txt"
	step "ksp trust --core arch-core.txt --min-paths 3 --max-depth 1 --per-uid --at 2023-03-21 (Arch's own rule)"
	"$ksp" trust --core "$out/arch-core.txt" --min-paths 3 --max-depth 1 --per-uid --at 2023-03-21 \
		02FD1C7A934E614545849F19A6234074498E9CEE || echo "(exit $?)"
	"$ksp" trust --core "$out/arch-core.txt" --min-paths 3 --max-depth 1 --per-uid --at 2023-03-21 \
		4AA4767BBC9C4B1D18AE28B77F2D434B9741E8AC || echo "(exit $? - not trusted: two user IDs, at most 2 main keys on one)"
	awk -F'\t' 'NR > 1 {print $1}' "$arch/trust-levels.tsv" > "$out/arch-all.txt"
	step "ksp trust ... --batch arch-all.txt (every key of the keyring)"
	"$ksp" -q trust --core "$out/arch-core.txt" --min-paths 3 --max-depth 1 --per-uid --at 2023-03-21 \
		--batch "$out/arch-all.txt" > "$out/arch-trust.txt" || true
	echo "$(grep -c ': trusted' "$out/arch-trust.txt") of $(wc -l < "$out/arch-all.txt") keys trusted; demo-out/arch-trust.txt has each verdict"
	run wot path --at 2023-03-21 91FFE0700E80619CEB73235CA88E23E377514E00 C100346676634E80C940FB9E9C02FF419FECBE16
	if "$ksp" help graph >/dev/null 2>&1; then
		run graph --at 2023-03-21 --paths 91FFE0700E80619CEB73235CA88E23E377514E00 C100346676634E80C940FB9E9C02FF419FECBE16 \
			-T svg -o "$out/arch-path.svg" || echo "(exit $?)"
		step "ksp graph --trust 02FD1C7A934E614545849F19A6234074498E9CEE --core arch-core.txt ... -o arch-trust.svg"
		"$ksp" graph --trust 02FD1C7A934E614545849F19A6234074498E9CEE --core "$out/arch-core.txt" --min-paths 3 \
			--max-depth 1 --per-uid --at 2023-03-21 -T svg -o "$out/arch-trust.svg" || echo "(exit $?)"
	fi
fi
ring=/usr/share/keyrings/debian-keyring.gpg
if [ -r "$ring" ]; then
	echo
	echo "== The admin: the Debian keyring =="
	export KSP_DB="$out/debian.db"
	run wot load "$ring"
	run wot stats --at 2023-01-01 --top 3
else
	echo "(the Debian keyring part needs the package debian-keyring: apt-get install debian-keyring)"
fi

echo
echo "demo-out/ holds:"
for f in party.db list.txt sheet.pdf sheet.html slips.pdf outbox-p1 party-signed.asc party-graph.svg \
	arch.db arch-trust.txt arch-path.svg arch-trust.svg debian.db; do
	[ -e "$out/$f" ] || continue
	case $f in
	party.db) d="the party's store (sqlite3 demo-out/party.db .tables)" ;;
	list.txt) d="the frozen participant list (its SHA-256 was announced)" ;;
	sheet.pdf) d="the verification sheet to print" ;;
	sheet.html) d="the same sheet as HTML" ;;
	slips.pdf) d="fingerprint slips of participant 1, with QR codes" ;;
	outbox-p1) d="what participant 1 would mail (outbox-p2.. for the others)" ;;
	party-signed.asc) d="the party keyring with every certification, to publish" ;;
	party-graph.svg) d="who signed whom" ;;
	arch.db) d="the Arch Linux keyring, verified" ;;
	arch-trust.txt) d="Arch's trust verdict for each of its keys" ;;
	arch-path.svg) d="a certification path, drawn" ;;
	arch-trust.svg) d="the three main-key certifications behind a trust verdict" ;;
	debian.db) d="the Debian keyring, verified" ;;
	esac
	printf '  %-18s %s\n' "$f" "$d"
done
