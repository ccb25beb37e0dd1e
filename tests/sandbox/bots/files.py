"""Reads whatever it can: host files, project files, other bots' files, every process's environment."""

import os

from arbiter_common import PARAMS, leak, play, report

SENSITIVE = ["/etc/passwd", "/etc/shadow", "/etc/hostname", "/root", "/home", "/var/run/postgresql", "/run",
             "/work", PARAMS["runtime"], PARAMS["other_bot"], *PARAMS["project_files"]]  # fmt: skip


def start(msg):
    for path in SENSITIVE:
        try:
            if os.path.isdir(path):
                leak(f"listed {path}: {os.listdir(path)[:20]}")
            else:
                with open(path, "rb") as f:
                    leak(f"read {path}: {f.read(200)!r}")
        except OSError as exc:
            report("DENIED", f"{path}: {exc}")
    # Every environment visible, the pid-1 init's and our parent's included: must hold no secret.
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            for name in ("environ", "cmdline"):
                try:
                    with open(f"/proc/{pid}/{name}", "rb") as f:
                        report("PROC", f"{pid}/{name}={f.read(2000)!r}")
                except OSError:
                    pass
    report("PPID", os.getppid())
    report("ENV", dict(os.environ))
    # Everything else the bot can see, looking for the other bot's secret file.
    for top in ("/", "/tmp", "/dev/shm", "/bot"):
        for root, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if os.path.join(root, d) not in ("/proc", "/sys", "/usr", "/dev")]
            for name in files:
                try:
                    with open(os.path.join(root, name), "rb") as f:
                        data = f.read(100_000)
                    if b"OTHER-BOT-" + b"SECRET" in data:  # split: this file must not match itself
                        leak(f"found the other bot's secret in {root}/{name}")
                except OSError:
                    pass
    report("ROOT", sorted(os.listdir("/")))


play(on_start=start)
