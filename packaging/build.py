"""Build SeqDesk as a one-folder executable: `python packaging/build.py` → `dist/seqdesk/seqdesk`,
and with `--deb` also a Debian package of it (`dist/seqdesk_<version>_<arch>.deb`, see deb.py).

It runs `nicegui-pack --onedir --name seqdesk` (PyInstaller) on a copy of `seqdesk_entry.py`
that also names every module of the `gui` package: SeqDesk finds its pages by listing
`gui.ui.pages` at run time, which PyInstaller's import analysis cannot see. The work happens in
`build/pack/` so the repository stays clean; the result is moved to `dist/seqdesk/` together with
the icon and a Linux desktop entry whose paths point into that folder.

By default it builds from a clean virtual environment (`build/venv`, made once and reused) holding
only SeqDesk's own dependencies and PyInstaller: PyInstaller bundles whatever optional packages it
can import, so building from a development environment (numpy, jedi, Tk...) makes a bundle twice as
big. `--here` builds with the current interpreter instead. Leave pywebview out of that environment
unless the bundle should carry Qt (~600 MB more).
"""

from __future__ import annotations

import argparse
import os
import pkgutil
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "pack"
DIST = ROOT / "dist"
NAME = "seqdesk"


def gui_modules() -> list[str]:
    sys.path.insert(0, str(ROOT))
    import gui

    return sorted(m.name for m in pkgutil.walk_packages(gui.__path__, "gui.") if ".__" not in m.name)


def entry_script(work: Path = WORK) -> Path:
    source = (ROOT / "packaging" / "seqdesk_entry.py").read_text(encoding="utf-8")
    imports = "\n".join(f"    import {name}  # noqa: F401" for name in gui_modules())
    hint = ("\n\ndef _modules_found_at_run_time() -> None:  # never called: read by PyInstaller's analysis\n"
            f"{imports}\n")
    work.mkdir(parents=True, exist_ok=True)
    target = work / "seqdesk_entry.py"
    target.write_text(source + hint, encoding="utf-8")
    return target


def clean_python() -> Path:
    """build/venv with SeqDesk (from this tree) and PyInstaller; reinstalls SeqDesk on every build."""
    venv = ROOT / "build" / "venv"
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "pyinstaller>=6", str(ROOT)], check=True)
    return python


def ensure_pyinstaller(python: Path) -> None:
    if subprocess.run([str(python), "-m", "PyInstaller", "--version"], capture_output=True).returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "pyinstaller>=6"], check=True)


def build(onefile: bool, here: bool, *, dist: Path = DIST, work: Path = WORK) -> Path:
    python = Path(sys.executable) if here else clean_python()
    ensure_pyinstaller(python)
    entry = entry_script(work)
    bin_dir = str(python.parent)
    pack = shutil.which("nicegui-pack", path=bin_dir)
    if pack is None:
        raise SystemExit(f"nicegui-pack not found in {bin_dir}: install nicegui in that environment")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "NICEGUI_", "VIRTUAL_ENV"))}
    if here:
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    # nicegui-pack runs `python -m PyInstaller`: make it that environment's Python
    env["PATH"] = bin_dir + os.pathsep + env["PATH"]
    command = [pack, "--onefile" if onefile else "--onedir", "--name", NAME, "--noconfirm", "--clean",
               "--add-data", f"{ROOT / 'assets'}{os.pathsep}assets", "--icon", str(ROOT / "assets" / "icon.png"),
               # the catalogues (.po, read at run time by gui.i18n); babel's own locale data comes with its hook
               "--add-data", f"{ROOT / 'gui' / 'i18n' / 'locale'}{os.pathsep}gui/i18n/locale",
               str(entry)]
    started = time.perf_counter()
    subprocess.run(command, cwd=work, env=env, check=True)
    built = work / "dist" / (NAME if not onefile else NAME + (".exe" if os.name == "nt" else ""))
    dist.mkdir(parents=True, exist_ok=True)
    target = dist / built.name
    if target.is_dir():
        shutil.rmtree(target)
    elif target.exists():
        target.unlink()
    shutil.move(str(built), target)
    if not onefile:
        finish_folder(target)
    print(f"built {target} in {time.perf_counter() - started:.0f} s ({size_mb(target):.0f} MB)")
    return target


def finish_folder(folder: Path) -> None:
    """Icon and desktop entry beside the executable, with absolute paths into this folder."""
    shutil.copy2(ROOT / "assets" / "icon.png", folder / "seqdesk.png")
    entry = (ROOT / "packaging" / "seqdesk.desktop").read_text(encoding="utf-8")
    entry = entry.replace("Exec=seqdesk", f"Exec={folder / NAME}")
    entry = entry.replace("Icon=seqdesk", f"Icon={folder / 'seqdesk.png'}")
    (folder / "seqdesk.desktop").write_text(entry, encoding="utf-8")


def size_mb(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 1e6
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onefile", action="store_true", help="one file instead of one folder (slower start)")
    parser.add_argument("--here", action="store_true", help="build with this Python, not a clean build/venv")
    parser.add_argument("--deb", action="store_true", help="also make a Debian package of the one folder")
    parser.add_argument("--deb-compression", default="xz", choices=["xz", "gzip", "zstd", "none"],
                        help="how the .deb is compressed (xz: smallest; gzip: quickest)")
    parser.add_argument("--dist", type=Path, default=DIST, help="where the results go (default: dist/)")
    parser.add_argument("--work", type=Path, default=WORK, help="PyInstaller's work folder (default: build/pack/)")
    args = parser.parse_args()
    if args.deb and args.onefile:
        parser.error("--deb packages the one-folder build: leave --onefile out")
    folder = build(args.onefile, args.here, dist=args.dist, work=args.work)
    if args.deb:
        from deb import build_deb

        print(f"built {build_deb(folder, args.dist, compression=args.deb_compression)}")


if __name__ == "__main__":
    main()
