"""What a patch says it changes, read before anything is applied.

git writes every extended header (new and deleted file modes, renames, copies, `GIT binary
patch`, `Binary files ... differ`) at the top of a `diff --git` block, before any hunk, so the
files are found without trusting hunk line counts (often wrong in written-by-hand or generated
patches, which `git apply --recount` tolerates). Plain unified diffs (no `diff --git`) are parsed
with unidiff. When unidiff can also read a git patch, every file it finds must be one the headers
name: a patch that two parsers read differently is how a change slips past the checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict
from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from smellkit.errors import PatchError

FileKind = Literal["add", "delete", "modify", "rename", "copy"]
SYMLINK_MODE = "120000"
SUBMODULE_MODE = "160000"

_GIT = "diff --git "
_BINARY = re.compile(r"^Binary files? .* differ$")
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
_QUOTE = {value: key for key, value in _ESCAPES.items()}
_HEADERS = ("old mode ", "new mode ", "deleted file mode ", "new file mode ", "rename from ",
            "rename to ", "copy from ", "copy to ", "similarity index ", "dissimilarity index ",
            "index ", "rename old ", "rename new ")


class PatchFormatError(PatchError):
    """The text is not a unified diff smellkit can read (so it cannot be checked or applied)."""


class AmbiguousPatchError(PatchFormatError):
    """Two parsers read different files out of the patch: it is refused, not applied."""


class FileChange(BaseModel):
    """One file a patch changes, paths relative to the repository root (a/ and b/ removed)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    old_path: str | None
    """None when the patch creates the file."""
    new_path: str | None
    """None when the patch deletes the file."""
    old_mode: str | None = None
    new_mode: str | None = None
    is_copy: bool = False
    binary: bool = False
    symlink_target: str | None = None
    """What a symbolic link made by the patch (mode 120000) points to."""

    @property
    def kind(self) -> FileKind:
        if self.old_path is None:
            return "add"
        if self.new_path is None:
            return "delete"
        if self.old_path != self.new_path:
            return "copy" if self.is_copy else "rename"
        return "modify"

    @property
    def paths(self) -> tuple[str, ...]:
        """Every path the change reads or writes."""
        return tuple(dict.fromkeys(p for p in (self.old_path, self.new_path) if p is not None))


# ---------------------------------------------------------------------------------------------
# Names: git's C quoting and the -p1 prefix.

def unquote(text: str) -> tuple[str, str]:
    """A C-quoted name at the start of `text` ("a/x\\ty"), and the text after it."""
    out = bytearray()
    index = 1
    while index < len(text):
        char = text[index]
        if char == '"':
            return out.decode("utf-8", "surrogateescape"), text[index + 1:]
        if char != "\\":
            out += char.encode("utf-8", "surrogateescape")
            index += 1
            continue
        escape = text[index + 1:index + 2]
        if escape in _ESCAPES:
            out.append(_ESCAPES[escape])
            index += 2
        elif re.fullmatch(r"[0-3][0-7]{2}", text[index + 1:index + 4]):
            out.append(int(text[index + 1:index + 4], 8))
            index += 4
        else:
            raise PatchFormatError(f"bad escape in quoted name {text!r}")
    raise PatchFormatError(f"unterminated quoted name {text!r}")


def quote(name: str) -> str:
    """`name` as git writes it: C-quoted when it holds quotes, backslashes or control bytes
    (bytes that are not UTF-8, kept as surrogates, become octal escapes)."""
    def one(char: str) -> str:
        code = ord(char)
        if code in _QUOTE:
            return "\\" + _QUOTE[code]
        if code < 32 or code == 127:
            return f"\\{code:03o}"
        if 0xDC80 <= code <= 0xDCFF:
            return f"\\{code - 0xDC00:03o}"
        return char

    text = "".join(one(char) for char in name)
    return name if text == name else f'"{text}"'


def _name(text: str) -> str:
    """A file name from a `---`/`+++`/rename line: unquoted, timestamp and line end dropped."""
    text = text.rstrip("\r")
    if text.startswith('"'):
        return unquote(text)[0]
    return text.split("\t", 1)[0]


def strip_prefix(name: str) -> str | None:
    """The repository path `git apply -p1` makes of a name; None for /dev/null. An absolute
    name stays absolute so that the path check refuses it instead of it being silently cut."""
    if name == "/dev/null":
        return None
    if name.startswith("/"):
        return name
    head, slash, tail = name.partition("/")
    return tail if slash else head


def _header_names(rest: str) -> tuple[str, str] | None:
    """The two names of a `diff --git` line, when they can be told apart (as git does it: quoted
    names, or two equal halves)."""
    rest = rest.rstrip("\r")
    if rest.startswith('"'):
        first, after = unquote(rest)
        after = after.lstrip(" ")
        second = unquote(after)[0] if after.startswith('"') else after
        return first, second
    if ' "' in rest:
        first, _, after = rest.partition(' "')
        return first, unquote('"' + after)[0]
    for match in re.finditer(" ", rest):
        first, second = rest[:match.start()], rest[match.end():]
        if strip_prefix(first) == strip_prefix(second):
            return first, second
    return None


# ---------------------------------------------------------------------------------------------
# Blocks.

@dataclass
class _Block:
    change: FileChange
    header: dict[int, str]
    """Line index (in the whole patch) -> which names it holds: git, old, new, from, to,
    binary."""


def _parse_block(lines: list[str], start: int, end: int) -> _Block:
    values: dict[str, str] = {}
    header = {start: "git"}
    index = start + 1
    while index < end:
        line = lines[index].rstrip("\r")
        if line.startswith("--- "):
            if index + 1 >= end or not lines[index + 1].startswith("+++ "):
                raise PatchFormatError(f"line {index + 1}: `---` without `+++` after it")
            values["---"], values["+++"] = line[4:], lines[index + 1][4:]
            header.update({index: "old", index + 1: "new"})
            break
        prefix = next((p for p in _HEADERS if line.startswith(p)), None)
        if prefix is None:
            break
        values[prefix.strip()] = line[len(prefix):]
        if prefix.startswith(("rename", "copy")):
            header[index] = "from" if prefix.endswith(("from ", "old ")) else "to"
        index += 1
    body = lines[index:end]
    header.update({index + offset: "binary" for offset, line in enumerate(body)
                   if _BINARY.match(line.rstrip("\r"))})
    return _Block(_change(values, lines[start][len(_GIT):], body, start), header)


def _change(values: dict[str, str], git_line: str, body: list[str], start: int) -> FileChange:
    old_mode = values.get("old mode") or values.get("deleted file mode")
    new_mode = values.get("new mode") or values.get("new file mode")
    index_mode = values.get("index", "").partition(" ")[2].strip() or None
    old_mode, new_mode = old_mode or index_mode, new_mode or index_mode
    moved_from = values.get("rename from", values.get("rename old", values.get("copy from")))
    moved_to = values.get("rename to", values.get("rename new", values.get("copy to")))
    old: str | None
    new: str | None
    if moved_from is not None and moved_to is not None:
        old, new = _name(moved_from), _name(moved_to)
    elif "---" in values:
        old, new = strip_prefix(_name(values["---"])), strip_prefix(_name(values["+++"]))
    else:
        names = _header_names(git_line)
        if names is None:
            raise PatchFormatError(f"line {start + 1}: cannot tell the file names of "
                                   f"`diff --git {git_line.strip()}`")
        old, new = strip_prefix(names[0]), strip_prefix(names[1])
    if "new file mode" in values:
        old, old_mode = None, None
    if "deleted file mode" in values:
        new, new_mode = None, None
    if old is None and new is None:
        raise PatchFormatError(f"line {start + 1}: a file change with no file name")
    binary = any(line.rstrip("\r") == "GIT binary patch" or _BINARY.match(line.rstrip("\r"))
                 for line in body)
    target = _symlink_target(body) if new_mode == SYMLINK_MODE else None
    return FileChange(old_path=old, new_path=new, old_mode=old_mode, new_mode=new_mode,
                      is_copy="copy from" in values, binary=binary, symlink_target=target)


def _symlink_target(body: list[str]) -> str | None:
    """The link text of a new or changed symlink: the one added line of its hunk."""
    in_hunk = False
    for line in body:
        if line.startswith("@@ "):
            in_hunk = True
        elif in_hunk and line.startswith("+"):
            return line[1:]
        elif in_hunk and not line.startswith((" ", "-", "\\")):
            break
    return None


def _plain(text: str) -> list[FileChange]:
    """Changes of a plain unified diff (no `diff --git` headers), read by unidiff."""
    try:
        patch = PatchSet.from_string(text)
    except UnidiffParseError as error:
        raise PatchFormatError(f"not a unified diff: {error}") from error
    changes = []
    for item in patch:
        old = strip_prefix(_name(item.source_file)) if item.source_file else None
        new = strip_prefix(_name(item.target_file)) if item.target_file else None
        if old is None and new is None:
            raise PatchFormatError("a file change with no file name")
        changes.append(FileChange(old_path=old, new_path=new, binary=item.is_binary_file))
    return changes


@dataclass
class ParsedPatch:
    changes: tuple[FileChange, ...]
    disagreements: tuple[str, ...]
    """Paths unidiff reads as changed that git's headers do not name."""
    blocks: list[_Block]


def _parse(patch: str) -> ParsedPatch:
    lines = patch.split("\n")
    starts = [number for number, line in enumerate(lines) if line.startswith(_GIT)]
    if not starts:
        return ParsedPatch(tuple(_plain(patch)), (), [])
    preamble = "\n".join(lines[:starts[0]])
    changes = _plain(preamble + "\n") if re.search(r"^@@ -", preamble, re.MULTILINE) else []
    blocks = [_parse_block(lines, start, end)
              for start, end in zip(starts, [*starts[1:], len(lines)])]
    changes.extend(block.change for block in blocks)
    named = {path for change in changes for path in change.paths}
    try:
        second = _plain(patch)
    except PatchFormatError:  # hunk counts off: git apply --recount may still take it
        second = []
    unseen = sorted({p for change in second for p in change.paths} - named)
    return ParsedPatch(tuple(changes), tuple(unseen), blocks)


def parse_patch(patch: str) -> tuple[FileChange, ...]:
    """Every file `patch` changes; raises PatchFormatError when it names no file or is not a
    diff, and AmbiguousPatchError when unidiff finds a changed file the git headers do not
    name."""
    parsed = _parse(patch)
    if parsed.disagreements:
        raise AmbiguousPatchError("ambiguous patch: unidiff reads changes to "
                               f"{', '.join(parsed.disagreements)} that its headers do not name")
    if not parsed.changes:
        raise PatchFormatError("no file changes in the patch",
                               hint="a patch needs `diff --git` or `---`/`+++` file headers")
    return parsed.changes


def normal_folder(folder: str) -> str:
    """A relative POSIX folder as paths are joined to it: "" for the root however it is
    written ("", ".", "./", "/"), else without "./" segments or outer slashes ("./src/" ->
    "src")."""
    return "/".join(part for part in folder.strip().split("/") if part not in ("", "."))


def prefix_paths(patch: str, prefix: str) -> str:
    """The same git patch with every path moved under the folder `prefix` (e.g. a case's
    source path, so that its patch applies at the repository root)."""
    prefix = normal_folder(prefix)
    if not prefix or not patch.strip():
        return patch
    parsed = _parse(patch)
    if not parsed.blocks or any(change.old_path is None and change.new_path is None
                                for change in parsed.changes):
        raise PatchFormatError("only patches with `diff --git` headers can be moved")
    lines = patch.split("\n")
    for block in parsed.blocks:
        old, new = block.change.old_path, block.change.new_path
        moved = {side: f"{prefix}/{path}" for side, path in (("old", old), ("new", new))
                 if path is not None}
        either = moved.get("old", moved.get("new", ""))
        for number, role in block.header.items():
            line, end = lines[number].rstrip("\r"), "\r" if lines[number].endswith("\r") else ""
            if role == "git":
                text = (f"diff --git {quote('a/' + either)} "
                        f"{quote('b/' + moved.get('new', either))}")
            elif role == "binary":
                sides = [quote(side + moved[role]) if role in moved else "/dev/null"
                         for side, role in (("a/", "old"), ("b/", "new"))]
                text = f"Binary files {sides[0]} and {sides[1]} differ"
            elif role in ("old", "new"):
                marker = "---" if role == "old" else "+++"
                side = "a/" if role == "old" else "b/"
                text = (f"{marker} /dev/null" if role not in moved
                        else f"{marker} {quote(side + moved[role])}")
            else:
                keyword = " ".join(line.split(" ")[:2])  # rename from, copy to, ...
                text = f"{keyword} {quote(moved['old' if role == 'from' else 'new'])}"
            lines[number] = text + end
    return "\n".join(lines)
