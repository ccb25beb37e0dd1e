"""Tries, on its first turn, to have the kernel send it (or a child) SIGKILL or SIGSTOP later, then plays on.

``params.json``: ``how`` is ``clone`` (a child's exit signal), ``fcntl`` (F_SETSIG on a pipe
that becomes readable), ``timer`` (a POSIX timer's signal), ``mq`` (a message queue's
notification), ``pdeathsig`` (PR_SET_PDEATHSIG of a child whose parent thread ends) or
``pty`` (a pseudo-terminal, whose job control could stop a process); ``signal`` the number.
Reports ``TRIED:<how> ok`` or ``TRIED:<how> refused <errno>``; a refused bot goes on playing.
"""

import ctypes
import fcntl
import os
import threading
import time

from arbiter_common import PARAMS, play, report

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
HOW = PARAMS["how"]
SIG = int(PARAMS.get("signal", 9))
F_SETSIG = 10
PR_SET_PDEATHSIG = 1


class SigEvent(ctypes.Structure):
    _fields_ = [("value", ctypes.c_void_p), ("signo", ctypes.c_int), ("notify", ctypes.c_int),
                ("pad", ctypes.c_int * 12)]  # fmt: skip


def checked(result):
    if result == -1:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


def clone():
    pid = checked(libc.syscall(56, SIG, 0, 0, 0, 0))  # clone(exit signal only): returns like fork
    if pid == 0:
        os._exit(0)


def fcntl_setsig():
    r, w = os.pipe()
    fcntl.fcntl(r, fcntl.F_SETOWN, os.getpid())
    fcntl.fcntl(r, F_SETSIG, SIG)
    fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_ASYNC)
    os.write(w, b"x")


def timer():
    timer_id = ctypes.c_void_p()
    checked(libc.timer_create(1, ctypes.byref(SigEvent(None, SIG, 0)), ctypes.byref(timer_id)))
    spec = (ctypes.c_long * 4)(0, 0, 0, 10_000_000)  # once, in 10 ms
    checked(libc.timer_settime(timer_id, 0, spec, None))


def mq():
    queue = checked(libc.mq_open(b"/arbiter-test", os.O_CREAT | os.O_RDWR, 0o600, None))
    checked(libc.mq_notify(queue, ctypes.byref(SigEvent(None, SIG, 0))))
    checked(libc.mq_send(queue, b"x", 1, 0))


def pdeathsig():
    r, w = os.pipe()

    def parent_thread():
        if os.fork() == 0:
            # The child asks for the signal when the thread that made it ends, and waits for it.
            os.write(w, bytes([0 if libc.prctl(PR_SET_PDEATHSIG, SIG, 0, 0, 0) == 0 else ctypes.get_errno()]))
            time.sleep(60)
            os._exit(0)

    thread = threading.Thread(target=parent_thread)
    thread.start()
    thread.join()
    code = os.read(r, 1)[0]
    if code:
        raise OSError(code, os.strerror(code))


def pty():
    os.openpty()


ATTEMPTS = {"clone": clone, "fcntl": fcntl_setsig, "timer": timer, "mq": mq, "pdeathsig": pdeathsig, "pty": pty}
tried = []


def turn(msg):
    if not tried:
        tried.append(HOW)
        try:
            ATTEMPTS[HOW]()
            report("TRIED", f"{HOW} ok")
        except OSError as exc:
            report("TRIED", f"{HOW} refused {exc.errno}")
        time.sleep(0.05)  # bot code: time for a signal that was let through to arrive
    return msg["legal_moves"][0]


play(on_turn=turn)
