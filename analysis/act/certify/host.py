"""The host's identity and the program's version, gathered at the
campaign's start (and at each resume) for the reports."""

import os
import socket
import subprocess


def _first_line_with(path, key, sep=":"):
    """The value of the first line of path that starts with key."""
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith(key) and sep in line:
                    return line.split(sep, 1)[1].strip().strip('"')
    except OSError:
        pass
    return None


def host_identity():
    u = os.uname()
    cpu = (_first_line_with("/proc/cpuinfo", "model name") or
           _first_line_with("/proc/cpuinfo", "Hardware") or
           _first_line_with("/proc/cpuinfo", "cpu model") or u.machine)
    mem = _first_line_with("/proc/meminfo", "MemTotal")
    try:
        mem_bytes = int(mem.split()[0]) * 1024 if mem else None
    except ValueError:
        mem_bytes = None
    return {"hostname": socket.gethostname() or u.nodename,
            "kernel": "%s %s" % (u.sysname, u.release),
            "kernel_version": u.version, "machine": u.machine,
            "os": _first_line_with("/etc/os-release", "PRETTY_NAME=", "="),
            "cpu_model": cpu, "cpus": os.cpu_count(),
            "memory_bytes": mem_bytes}


def program_version(path):
    try:
        r = subprocess.run([path, "--version"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=10,
                           universal_newlines=True)
        return r.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None
