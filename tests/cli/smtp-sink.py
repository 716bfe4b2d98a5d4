#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# An SMTP server for the tests (aiosmtpd, Debian python3-aiosmtpd): listens
# on 127.0.0.1 on a free port, which it writes to PORTFILE once it serves;
# every message accepted goes into DIR as N.eml (with its envelope in
# N.env); RCPT TO an address in REFUSE gets "550 5.1.1 <ADDR>: no such user".
# With AUTH=USER:PASSWORD in the environment it asks for AUTH (LOGIN/PLAIN,
# allowed without TLS here) and refuses any other credentials.
# Usage: smtp-sink.py PORTFILE DIR [REFUSE...]; stopped by its pid.
import os
import signal
import socket
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult


class Sink:
    def __init__(self, out, refuse):
        self.out = out
        self.refuse = set(a.lower() for a in refuse)
        self.n = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.refuse:
            return "550 5.1.1 <%s>: no such user here" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.n += 1
        base = os.path.join(self.out, "%d" % self.n)
        with open(base + ".eml", "wb") as f:
            f.write(envelope.original_content)
        with open(base + ".env", "w") as f:
            f.write("from %s\n" % envelope.mail_from)
            for r in envelope.rcpt_tos:
                f.write("to %s\n" % r)
        return "250 Message accepted"


def main():
    portfile, out = sys.argv[1], sys.argv[2]
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    kw = {}
    cred = os.environ.get("AUTH")
    if cred:
        user, pw = cred.split(":", 1)

        def auth(server, session, envelope, mechanism, data):
            ok = data.login.decode() == user and data.password.decode() == pw
            return AuthResult(success=ok, handled=False)
        kw = dict(authenticator=auth, auth_required=True, auth_require_tls=False)
    c = Controller(Sink(out, sys.argv[3:]), hostname="127.0.0.1", port=port, **kw)
    c.start()
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % port)
    os.rename(portfile + ".tmp", portfile)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: done.set())
    signal.signal(signal.SIGINT, lambda *a: done.set())
    done.wait()
    c.stop()


main()
