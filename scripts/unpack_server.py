"""Unpacks a wheelhouse (scripts/build-wheelhouse.sh) into the server folder a .vsix carries.

Usage: unpack_server.py <uv> <wheels> <launcher> <outdir>

For each Python of the wheelhouse's manifest, uv installs todo-ls from the wheels alone into a
folder of its own (resolved for that Python version and the manifest's platform, with no
interpreter of that version needed). Every top-level entry (a package, a module, a .dist-info)
that is byte-identical for all of them goes once into `site/`; the rest (the compiled
libraries, and anything resolved differently per version) stays in `py<X.Y>/`. A package is
moved whole: one split between the two folders would hide its other half from imports. The
launcher (`todo-ls.py`) and a manifest (version, target, pythons) complete the folder; the
extension starts `python -I <outdir>/todo-ls.py` and installs nothing.

Each Python version found on PATH as `python<X.Y>` compiles `site/` and `py<X.Y>/` to bytecode
(unchecked-hash .pyc files, valid whatever mtimes the .vsix extraction gives the sources), so
the first start does not spend its time compiling; a version not found is named on stderr and
compiles on its first start instead. The release job installs all of them.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

UV_PLATFORMS = {
    "linux-x64": "x86_64-manylinux_2_17",
    "linux-arm64": "aarch64-manylinux_2_17",
    "darwin-x64": "x86_64-apple-darwin",
    "darwin-arm64": "aarch64-apple-darwin",
    "win32-x64": "x86_64-pc-windows-msvc",
}


def same_tree(a: Path, b: Path) -> bool:
    """Whether `a` and `b` (files or folders) both exist and hold the same names and bytes."""
    if not a.exists() or not b.exists():
        return False
    if a.is_file() or b.is_file():
        return a.is_file() and b.is_file() and filecmp.cmp(a, b, shallow=False)
    compared = filecmp.dircmp(a, b)
    if compared.left_only or compared.right_only or compared.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, compared.common_files, shallow=False)
    return (
        not mismatch and not errors and all(same_tree(a / d, b / d) for d in compared.common_dirs)
    )


def main(uv: str, wheels: Path, launcher: Path, out: Path) -> None:
    manifest = json.loads((wheels / "manifest.json").read_text("utf-8"))
    pythons: list[str] = manifest["pythons"]
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    folders = {version: out / f"py{version}" for version in pythons}
    for version, folder in folders.items():
        subprocess.run(
            [uv, "pip", "install", "--quiet", "--no-index", "--find-links", str(wheels),
             "--only-binary", ":all:", "--python", sys.executable, "--python-version", version,
             "--python-platform", UV_PLATFORMS[manifest["target"]], "--target", str(folder),
             f"todo-ls=={manifest['version']}"],
            check=True, env=env,
        )  # fmt: skip
        shutil.rmtree(folder / "bin", ignore_errors=True)  # console scripts: not used
    site = out / "site"
    site.mkdir()
    first, *others = folders.values()
    for entry in sorted(p.name for p in first.iterdir()):
        if all(same_tree(first / entry, other / entry) for other in others):
            shutil.move(first / entry, site / entry)
            for other in others:
                shutil.rmtree(other / entry) if (other / entry).is_dir() else (
                    other / entry
                ).unlink()
    compiled = []
    for version, folder in folders.items():
        python = shutil.which(f"python{version}")
        probe = [str(python), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"]
        answer = None if python is None else subprocess.run(probe, capture_output=True, text=True)
        if answer is None or answer.returncode != 0 or answer.stdout.strip() != version:
            # Absent, or a shim (pyenv) for a version that is not switched on.
            sys.stderr.write(f"unpack_server: no python{version} runs here: no .pyc for it\n")
            continue
        subprocess.run(
            [python, "-I", "-m", "compileall", "-q", "-j", "0", "--invalidation-mode",
             "unchecked-hash", str(site), str(folder)],
            check=True, env=env, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        compiled.append(version)
    shutil.copyfile(launcher, out / "todo-ls.py")
    described = {k: manifest[k] for k in ("version", "target", "pythons")}
    (out / "manifest.json").write_text(json.dumps(described, indent=2) + "\n", "utf-8")
    shared = len(list(site.iterdir()))
    per_python = ", ".join(f"{v} {len(list(f.iterdir()))}" for v, f in folders.items())
    sys.stdout.write(
        f"unpack_server: {shared} shared entries in site/, per Python: {per_python}; "
        f"bytecode for {', '.join(compiled) or 'none'}\n"
    )


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
