# SPDX-License-Identifier: LGPL-2.1-or-later
# The fault sweep's table (sourced by tests/fault/sweep.sh).  One line per
# command; to sweep a new command, add one `cmd` line (and a `setup` if none
# of these stores fits).
#
#   setup NAME BASE 'SHELL'   a directory with a store (s.db) and any files SHELL
#                             makes: copy setup BASE (- = empty), then
#                             run SHELL, where `ksp ARGS` is the normal ksp
#                             on this store; $FX is tests/keyrings, $SK is
#                             tests/data
#   cmdfail NAME SETUP ARGS...
#                             a command that must fail: every run, with or
#                             without a failure injected, exits 2 with one
#                             line and leaves all as it was
#   cmd NAME SETUP OUTPUT ARGS...
#                             run `ksp-fault -d STORE ARGS...` on a fresh copy
#                             of SETUP in an empty directory; OUTPUT is the
#                             file the command writes there (- for none): it
#                             must not exist after a failed run and must equal
#                             the reference after a successful one
#
# Setups and commands run in that directory with TMPDIR pointing to an
# empty directory (it must be empty again afterwards) and GNUPGHOME to a
# directory that must never be created.  GnuPG homes the setups need live
# in $SHORT_TMP, under /tmp: gpg-agent's socket path must fit in 108 bytes,
# and a clone's own path can be long.  `participant SETUP N` prints the
# fingerprint of participant N of a setup made above.

setup init   -     'ksp party init --name "Fault party" --date 2027-01-15 --location "Room 1"'
setup added  init  'ksp party add "$FX/party/p1-public.asc" "$FX/party/p2-public.asc" "$FX/party/p3-public.asc"'
setup closed added 'ksp party close -o list-closed.txt'
# p2's key certified by p1 (both user IDs), as sent back after the party
setup signed closed 'g=$(mktemp -d "$SHORT_TMP/g.XXXXXX") && gpg --homedir "$g" --batch --quiet --import "$FX/party/p1-secret.asc" "$FX/party/p2-public.asc" &&
	gpg --homedir "$g" --batch --quiet --yes --pinentry-mode loopback --passphrase "" --default-key "$(participant closed 1)" --quick-sign-key "$(participant closed 2)" &&
	gpg --homedir "$g" --armor --export "$(participant closed 2)" >p2-signed.asc;
	r=$?; gpgconf --homedir "$g" --kill all; rm -rf "$g"; exit $r'
setup imported signed 'ksp import p2-signed.asc'
setup signeddir signed 'mkdir in && mv p2-signed.asc in/'
# a file and a git tag signed by p2 (certified by p1): what verify checks
setup signedby imported 'g=$(mktemp -d "$SHORT_TMP/g.XXXXXX") && gpg --homedir "$g" --batch --quiet --import "$FX/party/p2-secret.asc" &&
	printf "release 1.0\n" >data.txt &&
	gpg --homedir "$g" --batch --quiet --pinentry-mode loopback --passphrase "" -u "$(participant imported 2)" --armor --detach-sign data.txt &&
	git init -q repo && git -C repo -c user.name=P2 -c user.email=p2@example.org commit -q --allow-empty -m one &&
	GNUPGHOME=$g git -C repo -c user.name=P2 -c user.email=p2@example.org -c user.signingkey="$(participant imported 2)" tag -s -m v1 v1;
	r=$?; gpgconf --homedir "$g" --kill all; rm -rf "$g"; exit $r'
# p1's secret key in a GnuPG home of its own (gh), for party sign --as p1
setup signer closed 'mkdir -m 700 gh && gpg --homedir gh --batch --quiet --import "$FX/party/p1-secret.asc"; r=$?; gpgconf --homedir gh --kill all; exit $r'
# gpg stops reading: 2,500 BEGIN lines, gpg exits with 90 KB of its input
# unread (gpgme used to poll for ever at 100% CPU); the home must go too
setup gpgstops init 'for i in $(seq 2500); do echo "-----BEGIN PGP PUBLIC KEY BLOCK-----"; done >begin.asc'
setup wot    -     'ksp wot load "$FX/several.gpg"; [ ! -r "$SK/sequoia-wot/simple.pgp" ] || ksp wot load "$SK/sequoia-wot/simple.pgp"'

#   name                 setup   output    ksp arguments
cmd "party init"         -       -         party init --name "New party" --date 2027-02-01
cmd "party add"          init    -         party add "$FX/party/p1-public.asc" "$FX/party/p2-public.asc"
cmdfail "party add (gpg stops reading)" gpgstops party add begin.asc
cmd "party add --json"   added   -         --json party add "$FX/party/p4-public.asc"
cmd "party remove"       added   -         party remove 2
cmd "party list"         added   -         party list
cmd "party list --json"  added   -         party list --json
cmd "party close"        added   list.txt  party close -o list.txt
cmd "party digest"       closed  list.txt  party digest -o list.txt
cmd "party reopen"       closed  -         party reopen --reason "a latecomer"
cmd "party verify-list"  closed  -         party verify-list list-closed.txt
cmd "party sheet"        closed  sheet.txt party sheet -o sheet.txt
cmd "party sheet --format html" closed sheet.html party sheet --format html -o sheet.html
cmd "party sheet --format pdf"  closed sheet.pdf  party sheet --format pdf -o sheet.pdf
cmd "party slips"        closed  slips.txt party slips -o slips.txt
cmd "party slips --format pdf"  closed slips.pdf  party slips --format pdf -o slips.pdf
cmd "party sign"         signer  -         party sign --as "$(participant closed 1)" --gnupg-home gh --outbox outbox 2
cmd "import"             signed  -         import p2-signed.asc
cmd "import DIR"         signeddir -       import in
cmd "party status"       imported -        party status
cmd "party export"       imported export.asc party export -o export.asc
cmd "graph"              imported graph.svg graph --party -T svg -o graph.svg
cmd "verify"             signedby -        verify --at 2027-01-15 --core-fpr "$(participant imported 1)" data.txt.asc data.txt
cmd "verify --git-tag"   signedby -        verify --at 2027-01-15 --core-fpr "$(participant imported 1)" --repo repo --git-tag v1
cmd "trust"              imported -        trust --at 2027-01-15 --core-fpr "$(participant imported 1)" "$(participant imported 2)"
cmd "wot load"           wot     -         wot load "$FX/bob-ed25519.asc" "$FX/carol-nonlatin.asc"
cmd "wot load (new store)" -     -         wot load "$FX/several.asc"
cmd "wot stats"          wot     -         wot stats --structural --at 2027-01-15
cmd "wot stats --keyring" -      -         wot stats --structural --at 2027-01-15 --keyring "$FX/several.asc" --keyring "$FX/bob-ed25519.asc"
