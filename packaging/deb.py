"""A Debian package of the one-folder build: `python packaging/build.py --deb`, or
`python packaging/deb.py dist/seqdesk` for a folder built already.

What it installs:
- `/opt/seqdesk/` the one folder (the executable, Python and every library inside it);
- `/usr/bin/seqdesk` a link to its executable, so `seqdesk` works in a terminal;
- `/usr/share/applications/seqdesk.desktop` the menu entry (Exec=seqdesk, Icon=seqdesk);
- the icon in the hicolor theme (512×512 PNG and the scalable SVG).

Nothing else is needed at run time; a Chromium-family browser is recommended for the app window
(without one SeqDesk opens in the default browser). Built with `dpkg-deb --root-owner-group`, so
no root is needed to build it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAME = "seqdesk"
DESCRIPTION = ("Build tool sequences, run them, and answer their requests for a human\n"
               " SeqDesk lets people who do not write code build sequences of tools, run them while\n"
               " watching every tool live, and approve what they ask for: from the desktop, a phone\n"
               " on the same network, or a notification.")


def version() -> str:
    import tomllib

    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def architecture() -> str:
    try:
        return subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return {"x86_64": "amd64", "aarch64": "arm64"}.get(os.uname().machine, os.uname().machine)


def control(size_kb: int) -> str:
    return (f"Package: {NAME}\nVersion: {version()}\nArchitecture: {architecture()}\n"
            "Maintainer: SeqDesk <seqdesk@localhost>\nSection: utils\nPriority: optional\n"
            f"Installed-Size: {size_kb}\nRecommends: chromium | google-chrome-stable | microsoft-edge-stable\n"
            f"Description: {DESCRIPTION}\n")


def desktop_entry() -> str:
    """The repository's entry, as is: `Exec=seqdesk` and `Icon=seqdesk` resolve once installed."""
    return (ROOT / "packaging" / "seqdesk.desktop").read_text(encoding="utf-8")


def stage(folder: Path, root: Path) -> None:
    """Lay the package's files out under `root` (what `/` will hold)."""
    if not (folder / NAME).is_file():
        raise SystemExit(f"{folder} is not a one-folder build: {folder / NAME} is missing (run packaging/build.py)")
    shutil.copytree(folder, root / "opt" / NAME, symlinks=True)
    for extra in ("seqdesk.desktop", "seqdesk.png"):  # the folder's own copies point into dist/: not here
        (root / "opt" / NAME / extra).unlink(missing_ok=True)
    (root / "usr" / "bin").mkdir(parents=True)
    os.symlink(f"/opt/{NAME}/{NAME}", root / "usr" / "bin" / NAME)
    apps = root / "usr" / "share" / "applications"
    apps.mkdir(parents=True)
    (apps / f"{NAME}.desktop").write_text(desktop_entry(), encoding="utf-8")
    icons = root / "usr" / "share" / "icons" / "hicolor"
    for size, source in (("512x512", "icon.png"), ("scalable", "icon.svg")):
        target = icons / size / "apps" / f"{NAME}{Path(source).suffix}"
        target.parent.mkdir(parents=True)
        shutil.copy2(ROOT / "assets" / source, target)
    for path in [root, *root.rglob("*")]:  # what dpkg expects: 0755 folders and programs, 0644 the rest
        if path.is_symlink():
            continue
        path.chmod(0o755 if path.is_dir() or os.access(path, os.X_OK) else 0o644)
    size_kb = sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink()) // 1024
    (root / "DEBIAN").mkdir()
    (root / "DEBIAN" / "control").write_text(control(size_kb), encoding="utf-8")


def build_deb(folder: Path, out: Path, *, compression: str = "xz") -> Path:
    """`<out>/seqdesk_<version>_<arch>.deb` from the one-folder build in `folder`."""
    if shutil.which("dpkg-deb") is None:
        raise SystemExit("dpkg-deb is needed to build the .deb (on Debian and Ubuntu: apt-get install dpkg)")
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{NAME}_{version()}_{architecture()}.deb"
    with tempfile.TemporaryDirectory(prefix="seqdesk-deb-") as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        stage(folder, root)
        subprocess.run(["dpkg-deb", "--root-owner-group", f"-Z{compression}", "--build", str(root), str(target)],
                       check=True, stdout=subprocess.DEVNULL)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description="Make a .deb of a one-folder SeqDesk build")
    parser.add_argument("folder", type=Path, nargs="?", default=ROOT / "dist" / NAME)
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    parser.add_argument("--compression", default="xz", choices=["xz", "gzip", "zstd", "none"])
    args = parser.parse_args()
    print(build_deb(args.folder, args.out, compression=args.compression))


if __name__ == "__main__":
    sys.exit(main())
