"""Writes wherever it can: its own files, system folders, the project, the runtime directory, /tmp."""

import os

from arbiter_common import PARAMS, leak, play, report

TARGETS = ["/bot/main.py", "/bot/new_file", "/usr/pwned", "/usr/lib/pwned", "/etc/pwned", "/pwned", "/dev/pwned",
           "/proc/sys/kernel/hostname", os.path.join(PARAMS["project_dir"], "pwned"),
           os.path.join(PARAMS["runtime"], "pwned")]  # fmt: skip


def start(msg):
    for path in TARGETS:
        try:
            with open(path, "a") as f:
                f.write("pwned")
            leak(f"wrote {path}")
        except OSError as exc:
            report("DENIED", f"{path}: {exc}")
    try:
        os.chmod("/bot/main.py", 0o777)
        leak("chmod of its own file")
    except OSError as exc:
        report("DENIED", f"chmod: {exc}")
    with open("/tmp/scratch", "w") as f:
        f.write("fine")
    report("OK", "tmp")


play(on_start=start)
