#!/usr/bin/env python3
"""Opens each .vsix (a zip) and checks its orjson: the universal one has none (the sidecar
runs on its standard-library stand-in), a platform's one has that platform's compiled orjson
for CPython 3.10..3.14 and no other platform's. Also: the sidecar, LICENSE and the icon are
packaged, the sidecar's modules with this Python's hash-checked bytecode and attrs code seed
(codecache.py), and the manifest's
target matches the file name.
    check_vsix.py FILE.vsix...     (default: every dist/team-inbox*.vsix)
    check_vsix.py --release FILE.vsix...   also what both registries refuse (scripts/release.sh):
        every target and the universal fallback, one identity and version, the licence, the
        icon (a PNG, at least 128x128), the README (there, no relative or http links, no SVG)"""

import glob
import json
import marshal
import pathlib
import re
import struct
import sys
import zipfile

MINORS = (10, 11, 12, 13, 14)
# what a compiled orjson file of each target must look like; any other native file fails
NATIVE = {
    "linux-x64": r"orjson\.cpython-3(\d+)-x86_64-linux-gnu\.so",
    "linux-arm64": r"orjson\.cpython-3(\d+)-aarch64-linux-gnu\.so",
    # CPython before 3.11 on musl still names its extension suffix "linux-gnu": the content tells
    "alpine-x64": r"orjson\.cpython-3(\d+)-x86_64-linux-(?:musl|gnu)\.so",
    "darwin-x64": r"orjson\.cpython-3(\d+)-darwin\.so",
    "darwin-arm64": r"orjson\.cpython-3(\d+)-darwin\.so",
    "win32-x64": r"orjson\.cp3(\d+)-win_amd64\.pyd",
}
LIBS = "extension/bundled/libs/"


def binary_kind(data: bytes) -> str:
    """What a native file is built for, from its bytes: linux-x64 / alpine-x64 / linux-arm64 /
    darwin / win32-x64 / unknown."""
    if data[:4] == b"\x7fELF":
        machine = int.from_bytes(data[18:20], "little")
        musl = b"libc.musl-" in data
        if machine == 0x3E:
            return "alpine-x64" if musl else "linux-x64"
        if machine == 0xB7:
            return "alpine-arm64" if musl else "linux-arm64"
        return f"elf-{machine:#x}"
    if data[:4] in (b"\xca\xfe\xba\xbe", b"\xcf\xfa\xed\xfe"):
        return "darwin"
    if data[:2] == b"MZ":
        return "win32-x64" if b"PE\0\0d\x86" in data[:1024] else "win32-other"
    return "unknown"


def target_of(path: pathlib.Path) -> str:
    m = re.fullmatch(r"team-inbox(?:-(.+))?\.vsix", path.name)
    if not m:
        raise SystemExit(f"{path}: not a team-inbox .vsix name")
    return m.group(1) or "universal"


LAUNCHER = "extension/claude-plugin/bin/teaminbox-plugin"


def check(path: pathlib.Path) -> list[str]:
    target = target_of(path)
    errors: list[str] = []
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        manifest = z.read("extension.vsixmanifest").decode()
        # the plugin's launcher keeps its mode: Claude Code's copy of the plugin is made from it
        launcher = z.getinfo(LAUNCHER) if LAUNCHER in names else None
    if launcher is not None and (launcher.external_attr >> 16) & 0o777 != 0o755:
        errors.append(f"{LAUNCHER}: mode {oct((launcher.external_attr >> 16) & 0o777)}, not 0o755")
    for need in (
        f"{LIBS}teaminbox/__main__.py",
        f"{LIBS}teaminbox/orjson_standin.py",
        "extension/LICENSE.txt",
        "extension/package.json",
        "extension/dist/extension.js",
        "extension/dist/teamView.js",
        "extension/dist/teamView.css",
        "extension/.claude-plugin/marketplace.json",
        "extension/claude-plugin/.claude-plugin/plugin.json",
        "extension/claude-plugin/hooks/hooks.json",
        "extension/claude-plugin/.mcp.json",
        LAUNCHER,
        "extension/claude-plugin/bin/launch.py",
    ):
        if need not in names:
            errors.append(f"missing {need}")
    errors += bytecode_problems(path, names)
    if not any(n.startswith("extension/") and n.endswith("icon.png") for n in names):
        errors.append("no icon.png")
    declared = re.search(r'TargetPlatform="([^"]+)"', manifest)
    if (declared.group(1) if declared else "universal") != target:
        errors.append(
            f"manifest TargetPlatform {declared.group(1) if declared else None!r} for {target}"
        )
    native = [n for n in names if n.startswith(LIBS) and n.endswith((".so", ".pyd", ".dylib"))]
    orjson_files = [n for n in names if n.startswith(LIBS + "orjson")]
    if target == "universal":
        if orjson_files:
            errors.append(f"universal .vsix holds orjson: {orjson_files[:3]}")
        if native:
            errors.append(f"universal .vsix holds native files: {native[:3]}")
    else:
        pattern = re.compile(LIBS + "orjson/" + NATIVE[target])
        want_kind = "darwin" if target.startswith("darwin") else target
        found = set()
        with zipfile.ZipFile(path) as z:
            for n in native:
                m = pattern.fullmatch(n)
                kind = binary_kind(z.read(n))
                if m and kind == want_kind:
                    found.add(int(m.group(1)))
                else:
                    errors.append(f"not a {target} file: {n} ({kind})")
        missing = [f"3.{m}" for m in MINORS if m not in found]
        if missing:
            errors.append(f"no orjson for CPython {', '.join(missing)}")
        if f"{LIBS}orjson/__init__.py" not in names:
            errors.append("no orjson/__init__.py")
    print(
        f"{'FAIL' if errors else 'ok  '} {path.name:32} {target:13}"
        f" {path.stat().st_size // 1024:6} KB "
        f"orjson binaries: {len([n for n in native if '/orjson/' in n])}",
        flush=True,
    )
    return errors


def bytecode_problems(path: pathlib.Path, names: list[str]) -> list[str]:
    """The packaging Python's bytecode (scripts/package-vsix.sh) beside each of the sidecar's
    modules, hash-checked (valid whatever mtimes the install gives the sources), and no
    bytecode without its source."""
    tag = sys.implementation.cache_tag
    sources = [n for n in names if n.startswith(LIBS + "teaminbox/") and n.endswith(".py")]
    errors = []
    with zipfile.ZipFile(path) as z:
        for src in sources:
            folder, _, name = src.rpartition("/")
            pyc = f"{folder}/__pycache__/{name[:-3]}.{tag}.pyc"
            if pyc not in names:
                errors.append(f"no {tag} bytecode for {src}")
                continue
            flags = struct.unpack("<I", z.read(pyc)[4:8])[0]
            if flags != 0b11:  # hash-based, check_source
                errors.append(f"{pyc} is not hash-checked bytecode (flags {flags})")
        for kind in ("", ".late"):  # scripts/seed-codecache.py
            seed = f"{LIBS}teaminbox/codecache-seed/attrs-code.{tag}{kind}.marshal"
            if seed not in names:
                errors.append(f"no attrs code seed {seed}")
            elif not isinstance(codes := marshal.loads(z.read(seed)), dict) or not codes:
                errors.append(f"{seed} holds no codes")
    for n in names:
        if n.endswith(".pyc"):
            folder, _, name = n.rpartition("/__pycache__/")
            if f"{folder}/{name.split('.')[0]}.py" not in names:
                errors.append(f"bytecode without its source: {n}")
    return errors[:5]


TARGETS = ("universal", *NATIVE)
# a Markdown image or link target, and an HTML src/href
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)|(?:src|href)\s*=\s*[\"']([^\"']+)")


def png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    w, h = struct.unpack(">II", data[16:24])
    return w, h


def identity(manifest: str) -> tuple[str, str, str]:
    m = re.search(
        r'<Identity [^>]*Id="([^"]+)"[^>]*Version="([^"]+)"[^>]*Publisher="([^"]+)"', manifest
    )
    return (m.group(3), m.group(1), m.group(2)) if m else ("?", "?", "?")


def release_problems(path: pathlib.Path) -> list[str]:
    """What a registry refuses in one package (beyond check()): licence, icon, README, manifest."""
    errors: list[str] = []
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        manifest = z.read("extension.vsixmanifest").decode()
        pkg = json.loads(z.read("extension/package.json"))
        got = (pkg.get("publisher"), pkg.get("name"), pkg.get("version"))
        if got != identity(manifest):
            errors.append("package.json and extension.vsixmanifest name different extensions")
        for key in ("publisher", "name", "version", "displayName", "description", "license"):
            if not pkg.get(key):
                errors.append(f"package.json has no {key}")
        if not (pkg.get("engines") or {}).get("vscode"):
            errors.append("package.json has no engines.vscode")
        lic = re.search(r"<License>([^<]+)</License>", manifest)
        if not lic or lic.group(1) not in names or not z.read(lic.group(1)).strip():
            errors.append("no licence file in the manifest")
        icon = re.search(r"<Icon>([^<]+)</Icon>", manifest)
        size = png_size(z.read(icon.group(1))) if icon and icon.group(1) in names else None
        if size is None:
            errors.append("the icon is not a PNG in the package")
        elif min(size) < 128:
            errors.append(f"the icon is {size[0]}x{size[1]}: at least 128x128")
        readme = next((n for n in names if n.lower() == "extension/readme.md"), None)
        text = z.read(readme).decode("utf-8", "replace") if readme else ""
        if len(text.strip()) < 200:
            errors.append("no README (extension/readme.md) worth a registry page")
        for m in LINK.finditer(text):
            url = m.group(1) or m.group(2)
            if url.startswith("#"):
                continue
            if not re.match(r"https://", url):
                errors.append(f"README link {url!r}: only https links resolve on a registry page")
            elif url.lower().split("?")[0].endswith(".svg"):
                errors.append(f"README image {url!r}: SVG images are refused")
    return errors


def check_release(files: list[pathlib.Path]) -> list[str]:
    """Across the set: each target once, the universal fallback, one identity and version."""
    errors: list[str] = []
    targets = [target_of(f) for f in files]
    for t in TARGETS:
        if targets.count(t) != 1:
            what = "the universal fallback" if t == "universal" else f"the {t} package"
            errors.append(f"{what}: {targets.count(t)} files, want 1")
    ids = set()
    for f in files:
        with zipfile.ZipFile(f) as z:
            ids.add(identity(z.read("extension.vsixmanifest").decode()))
    if len(ids) > 1:
        errors.append(f"the packages are of different extensions or versions: {sorted(ids)}")
    return errors


def main(argv: list[str]) -> int:
    release = "--release" in argv
    argv = [a for a in argv if a != "--release"]
    files = [pathlib.Path(a) for a in argv] or sorted(
        pathlib.Path(p) for p in glob.glob("dist/team-inbox*.vsix")
    )
    if not files:
        print("check_vsix: no .vsix files", file=sys.stderr)
        return 2
    bad = 0
    for f in files:
        for e in check(f) + (release_problems(f) if release else []):
            print(f"     {f.name}: {e}")
            bad += 1
    if release:
        for e in check_release(files):
            print(f"     release: {e}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
