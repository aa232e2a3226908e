"""The seccomp filter every sandboxed bot runs under: a deny list of dangerous system calls.

The bot already has no capabilities on the host, its own user namespace (and may not make
another: bwrap's ``--disable-userns``), no network and nothing of the host's file system but
read-only system files. The filter removes the kernel surface a bot never needs and that
escapes have used: tracing other processes, mounting, namespaces, keyrings, BPF, perf events,
kernel modules, io_uring, userfaultfd, handle-based opens, clock setting, and injecting
keystrokes into a terminal (``ioctl(TIOCSTI)``). Denied calls fail with EPERM rather than
killing the process, so a runtime that probes for a feature (Node, CPython) falls back cleanly.

The filter is compiled with libseccomp (through ``pyseccomp``) to classic BPF and handed to
bubblewrap, which installs it just before it executes the bot's command.
"""

from __future__ import annotations

import errno
import os
from typing import Final

__all__ = ["DENIED_SYSCALLS", "SeccompUnavailable", "compile_filter"]

#: system calls a bot may not make (EPERM). Names unknown to this kernel's libseccomp are skipped.
DENIED_SYSCALLS: Final = (
    # other processes' memory and execution
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # file systems and namespaces
    "mount", "umount2", "pivot_root", "chroot", "setns", "unshare",
    "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "open_by_handle_at", "name_to_handle_at", "fanotify_init",
    # kernel keyrings, BPF, perf, modules, kexec, reboot, swap, accounting, quotas
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "swapon", "swapoff", "acct", "quotactl", "lookup_dcookie", "syslog", "vhangup", "uselib",
    "nfsservctl",
    # large attack surfaces no bot needs
    "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd",
    # the machine's clock and I/O ports
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "iopl", "ioperm",
)
#: ioctl requests denied (terminal keystroke injection and console control)
_TIOCSTI: Final = 0x5412
_TIOCLINUX: Final = 0x541C


class SeccompUnavailable(RuntimeError):
    """libseccomp (or its Python binding) is missing: the sandbox cannot start."""


def compile_filter() -> int:
    """The filter as classic BPF in a memory file, positioned at its start: its descriptor.

    The caller owns the descriptor (pass it to bubblewrap's ``--seccomp FD``, then close it).
    """
    try:
        import pyseccomp as seccomp  # type: ignore[import-untyped]  # no stubs published
    except (ImportError, OSError) as exc:  # the binding, or libseccomp.so.2 itself
        raise SeccompUnavailable(f"libseccomp is not usable ({exc}); install libseccomp2") from exc
    filt = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    denied = seccomp.ERRNO(errno.EPERM)
    for name in DENIED_SYSCALLS:
        try:
            filt.add_rule(denied, name)
        except (ValueError, RuntimeError, OSError):
            continue  # a call this kernel or architecture does not have
    for request in (_TIOCSTI, _TIOCLINUX):
        filt.add_rule(denied, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    fd = os.memfd_create("arena-seccomp", 0)
    with os.fdopen(os.dup(fd), "wb") as out:
        filt.export_bpf(out)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
