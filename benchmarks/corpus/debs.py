"""Fetch Debian packages with ``apt-get download`` and unpack them with ``dpkg -x``.

Both work as root without installing anything. Downloads and unpacked trees
are cached, so a second run reads only the disk.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path


class FetchError(RuntimeError):
    """A package could not be downloaded or unpacked."""


@dataclass(frozen=True)
class Package:
    """An unpacked Debian package."""

    name: str
    version: str
    root: Path

    @property
    def licenses(self) -> list[str]:
        """Distinct ``License:`` fields of a machine-readable (DEP-5) copyright file.

        Empty for a free-form copyright file: read it, its text is not parsed.
        """
        path = self.root / "usr/share/doc" / self.name / "copyright"
        if not path.exists():
            return []
        text = path.read_text(encoding="utf-8", errors="replace")
        if not text.startswith("Format:"):
            return []
        return sorted(dict.fromkeys(re.findall(r"^License:[ \t]*(\S.*?)[ \t]*$", text, flags=re.M)))


def log(msg: str) -> None:
    """Progress goes to stderr so stdout stays free for ``--check`` output."""
    print(f"[corpus] {msg}", file=sys.stderr, flush=True)


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def _deb_version(deb: Path) -> str:
    out = subprocess.run(["dpkg-deb", "-f", str(deb), "Version"], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def _download(name: str, pin: str | None, dest: Path) -> Path:
    """Download ``name`` (at ``pin`` if the archive still has it) into ``dest``."""
    if shutil.which("apt-get") is None:
        raise FetchError("apt-get not found: the corpus needs a Debian-like machine")
    updated = False
    specs = ([f"{name}={pin}"] if pin else []) + [name]
    while True:
        errors = []
        for spec in specs:
            before = set(dest.glob(f"{name}_*.deb"))
            # Sandbox user root: the cache may not be readable by _apt.
            res = _run(["apt-get", "download", "-o", "APT::Sandbox::User=root", spec], dest)
            new = sorted(set(dest.glob(f"{name}_*.deb")) - before)
            if res.returncode == 0 and new:
                if spec != specs[0]:
                    log(f"warning: {name}={pin} is gone from the archive; using {new[0].name}")
                return new[0]
            if res.returncode == 0:  # already there under the same name
                return sorted(dest.glob(f"{name}_*.deb"))[-1]
            errors.append(res.stderr.strip().splitlines()[-1:] or ["?"])
        if updated:
            raise FetchError(f"apt-get download {name} failed: {errors}")
        # A fresh machine may have no package lists yet.
        log(f"apt-get download {name} failed ({errors[-1][0]}); running apt-get update")
        res = _run(["apt-get", "update"], dest)
        if res.returncode != 0:
            raise FetchError(f"apt-get update failed: {res.stderr.strip()[-500:]}")
        updated = True


def fetch(name: str, pin: str | None, cache: Path) -> Package:
    """Return ``name`` unpacked under ``cache``, downloading it if needed.

    A cached .deb of the pinned version is reused; without one, the pinned
    version is downloaded, or the archive's current one if the pin is gone
    (the manifest records which version was really used).

    Raises:
        FetchError: if apt cannot download the package at all.
    """
    cache = cache.resolve()
    debs = cache / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    cached = sorted(debs.glob(f"{name}_*.deb"))
    wanted = [d for d in cached if pin and _deb_version(d) == pin]
    if wanted:
        deb = wanted[0]
    elif cached and not pin:
        deb = cached[-1]
    else:
        log(f"downloading {name}{'=' + pin if pin else ''}")
        deb = _download(name, pin, debs)
    version = _deb_version(deb)
    root = cache / "unpacked" / f"{name}_{version.replace(':', '%3a')}"
    done = root / ".unpacked"
    if not done.exists():
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        res = _run(["dpkg", "-x", str(deb), str(root)], cache)
        if res.returncode != 0:
            raise FetchError(f"dpkg -x {deb.name} failed: {res.stderr.strip()}")
        done.touch()
    return Package(name, version, root)
