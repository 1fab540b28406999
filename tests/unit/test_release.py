"""scripts/release.sh and check_vsix.py --release on packages built here: one .vsix per target
(zip files shaped as vsce writes them, with native files whose headers say their platform),
and stand-ins for vsce and ovsx that record how they were called (no registry is reached)."""

from __future__ import annotations

import json
import marshal
import os
import struct
import subprocess
import sys
import zipfile
import zlib
from importlib.util import MAGIC_NUMBER, source_hash
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "release.sh"
LIBS = "extension/bundled/libs/"
TAG = sys.implementation.cache_tag
TARGETS = ("universal", "linux-x64", "linux-arm64", "alpine-x64", "darwin-x64", "darwin-arm64",
           "win32-x64")  # fmt: skip
PLUGIN_FILES = (".claude-plugin/marketplace.json", "claude-plugin/.claude-plugin/plugin.json",
                "claude-plugin/hooks/hooks.json", "claude-plugin/.mcp.json",
                "claude-plugin/bin/teaminbox-plugin", "claude-plugin/bin/launch.py")  # fmt: skip
README = "# Team Inbox\n\n" + "See and steer every agent team on your machine from VS Code. " * 6


def png(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)
    chunk = struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


def native(target: str, minor: int) -> tuple[str, bytes]:
    def elf(machine: int, extra: bytes = b"") -> bytes:
        return b"\x7fELF" + bytes(14) + machine.to_bytes(2, "little") + bytes(64) + extra

    pe = b"MZ" + bytes(126) + b"PE\0\0d\x86" + bytes(64)
    macho = b"\xcf\xfa\xed\xfe" + bytes(64)
    return {
        "linux-x64": (f"orjson.cpython-3{minor}-x86_64-linux-gnu.so", elf(0x3E)),
        "linux-arm64": (f"orjson.cpython-3{minor}-aarch64-linux-gnu.so", elf(0xB7)),
        "alpine-x64": (f"orjson.cpython-3{minor}-x86_64-linux-musl.so", elf(0x3E, b"libc.musl-x")),
        "darwin-x64": (f"orjson.cpython-3{minor}-darwin.so", macho),
        "darwin-arm64": (f"orjson.cpython-3{minor}-darwin.so", macho),
        "win32-x64": (f"orjson.cp3{minor}-win_amd64.pyd", pe),
    }[target]


def vsix(
    folder: Path,
    target: str,
    version: str = "0.1.0",
    readme: str = README,
    icon: bytes | None = None,
    licence: str = "MIT License\n",
    launcher_mode: int = 0o755,
) -> Path:
    name = "team-inbox.vsix" if target == "universal" else f"team-inbox-{target}.vsix"
    path = folder / name
    plat = "" if target == "universal" else f' TargetPlatform="{target}"'
    manifest = (
        f'<PackageManifest><Metadata><Identity Language="en-US" Id="team-inbox" Version="{version}"'
        f' Publisher="teaminbox"{plat} /><License>extension/LICENSE.txt</License>'
        "<Icon>extension/extension/media/icon.png</Icon></Metadata></PackageManifest>"
    )
    pkg = {
        "name": "team-inbox",
        "publisher": "teaminbox",
        "version": version,
        "displayName": "Team Inbox",
        "description": "agent-team inboxes",
        "license": "MIT",
        "engines": {"vscode": "^1.90.0"},
    }
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("extension.vsixmanifest", manifest)
        z.writestr("extension/package.json", json.dumps(pkg))
        z.writestr("extension/LICENSE.txt", licence)
        z.writestr("extension/readme.md", readme)
        z.writestr("extension/dist/extension.js", "exports.activate = () => {};\n")
        z.writestr("extension/dist/teamView.js", "")  # the team view's bundle (check_vsix)
        z.writestr("extension/dist/teamView.css", "")
        z.writestr("extension/extension/media/icon.png", png(128, 128) if icon is None else icon)
        for f in PLUGIN_FILES:  # the Claude Code plugin (teamInbox.installPlugin copies it out)
            info = zipfile.ZipInfo(f"extension/{f}")
            if f.endswith("bin/teaminbox-plugin"):
                info.external_attr = (0o100000 | launcher_mode) << 16
            z.writestr(info, "{}")
        for module in ("__main__", "orjson_standin"):  # the sources and their bytecode
            z.writestr(f"{LIBS}teaminbox/{module}.py", "")
            z.writestr(f"{LIBS}teaminbox/__pycache__/{module}.{TAG}.pyc", hash_pyc(b""))
        for kind in ("", ".late"):  # the attrs code seed (scripts/seed-codecache.py)
            seed = marshal.dumps({b"k" * 16: compile("", "<attrs>", "exec")})
            z.writestr(f"{LIBS}teaminbox/codecache-seed/attrs-code.{TAG}{kind}.marshal", seed)
        if target != "universal":
            z.writestr(f"{LIBS}orjson/__init__.py", "")
            for minor in (10, 11, 12, 13, 14):
                fname, data = native(target, minor)
                z.writestr(f"{LIBS}orjson/{fname}", data)
    return path


def stand_in(folder: Path, name: str) -> Path:
    """A vsce/ovsx stand-in: one line per call (its args, whether each token was in its env)."""
    exe = folder / name
    exe.write_text(
        "#!/bin/sh\n"
        'echo "$* | VSCE_PAT=${VSCE_PAT:+set} OVSX_PAT=${OVSX_PAT:+set}"'
        f' >> "{folder}/{name}.calls"\n'
    )
    exe.chmod(0o755)
    return exe


def hash_pyc(source: bytes) -> bytes:
    """Hash-checked bytecode of `source`, as scripts/package-vsix.sh compiles it."""
    code = marshal.dumps(compile(source, "<vsix>", "exec"))
    return MAGIC_NUMBER + struct.pack("<I", 0b11) + source_hash(source) + code


def release(tmp: Path, files: list[Path], **tokens: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VSCE_PAT", "OVSX_PAT")}
    env |= {"VSCE": str(stand_in(tmp, "vsce")), "OVSX": str(stand_in(tmp, "ovsx")), **tokens}
    env["CLAUDE"] = str(stand_in(tmp, "claude"))  # validates and tags the plugin: recorded only
    env["PYTHON"] = sys.executable  # check_vsix.py wants this Python's bytecode (TAG)
    return subprocess.run(
        ["bash", str(SCRIPT), *map(str, files)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def calls(tmp: Path, name: str) -> list[str]:
    f = tmp / f"{name}.calls"
    return f.read_text().splitlines() if f.exists() else []


@pytest.fixture
def packages(tmp_path: Path) -> list[Path]:
    out = tmp_path / "dist"
    out.mkdir()
    return [vsix(out, t) for t in TARGETS]


def test_dry_run_checks_and_says_what_it_would_do(tmp_path: Path, packages: list[Path]) -> None:
    p = release(tmp_path, packages)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "dry run (VSCE_PAT OVSX_PAT not set)" in p.stdout
    for f in packages:
        assert f"  vsce publish --packagePath {f}\n" in p.stdout
        assert f"  ovsx publish {f}\n" in p.stdout
    assert "plugin tag --push claude-plugin" in p.stdout
    assert calls(tmp_path, "vsce") == calls(tmp_path, "ovsx") == []
    # the plugin is validated before anything, and not tagged in a dry run
    assert [c.split(" |")[0] for c in calls(tmp_path, "claude")] == [
        "plugin validate --strict claude-plugin",
        "plugin validate --strict .",
    ]


def test_one_token_publishes_nowhere(tmp_path: Path, packages: list[Path]) -> None:
    p = release(tmp_path, packages, VSCE_PAT="secret-vsce")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "dry run (OVSX_PAT not set)" in p.stdout
    assert calls(tmp_path, "vsce") == calls(tmp_path, "ovsx") == []


def test_both_tokens_publish_every_package_to_both(tmp_path: Path, packages: list[Path]) -> None:
    p = release(tmp_path, packages, VSCE_PAT="secret-vsce", OVSX_PAT="secret-ovsx")
    assert p.returncode == 0, p.stdout + p.stderr
    env = "| VSCE_PAT=set OVSX_PAT=set"
    assert calls(tmp_path, "vsce") == [f"publish --packagePath {f} {env}" for f in packages]
    assert calls(tmp_path, "ovsx") == [f"publish {f} {env}" for f in packages]
    assert "secret" not in (tmp_path / "vsce.calls").read_text()  # never on a command line
    assert calls(tmp_path, "claude")[-1].startswith("plugin tag --push claude-plugin |")


def test_a_missing_target_publishes_nothing(tmp_path: Path, packages: list[Path]) -> None:
    without = [f for f in packages if "darwin-arm64" not in f.name and f.name != "team-inbox.vsix"]
    p = release(tmp_path, without, VSCE_PAT="a", OVSX_PAT="b")
    assert p.returncode == 1
    assert "release: the darwin-arm64 package: 0 files, want 1" in p.stdout
    assert "release: the universal fallback: 0 files, want 1" in p.stdout
    assert calls(tmp_path, "vsce") == calls(tmp_path, "ovsx") == []


@pytest.mark.parametrize(
    ("kw", "said"),
    [
        ({"icon": png(64, 64)}, "the icon is 64x64: at least 128x128"),
        ({"icon": b"<svg/>"}, "the icon is not a PNG in the package"),
        ({"licence": ""}, "no licence file in the manifest"),
        ({"readme": "# Team Inbox\n"}, "no README (extension/readme.md) worth a registry page"),
        ({"readme": README + "\n![tree](docs/tree.png)\n"}, "README link 'docs/tree.png'"),
        ({"readme": README + "\n[site](http://example.com/x)\n"}, "only https links resolve"),
        ({"readme": README + '\n<img src="https://example.com/b.svg">\n'}, "SVG images are"),
        ({"version": "0.2.0"}, "different extensions or versions"),
        ({"launcher_mode": 0o644}, "teaminbox-plugin: mode 0o644, not 0o755"),
    ],
)
def test_what_a_registry_refuses_is_caught(
    tmp_path: Path, packages: list[Path], kw: dict[str, object], said: str
) -> None:
    bad = vsix(packages[0].parent, "win32-x64", **kw)  # type: ignore[arg-type]
    p = release(tmp_path, packages, VSCE_PAT="a", OVSX_PAT="b")
    assert bad in packages
    assert p.returncode == 1, p.stdout
    assert said in p.stdout
    assert "nothing published" in p.stderr
    assert calls(tmp_path, "vsce") == calls(tmp_path, "ovsx") == []
