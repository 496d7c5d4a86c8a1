"""God class: a large, incohesive class that does the work of several and pulls in others' data.

The rule is Lanza and Marinescu's ("Object-Oriented Metrics in Practice", 2006): WMC >= 47 (VERY
HIGH: the sum of the cyclomatic complexity of its methods), TCC < 1/3 (fewer than a third of its
method pairs use a common attribute) and ATFD > 5 (it uses more than FEW attributes of other
classes, with the notion of data of feature envy: see `feature_envy.DataAccess`).

TCC is Bieman and Kang's, as `smellkit.metrics.oo` computes it: pairs of visible methods (public
names and dunders) that use a common attribute through `self`, directly or through methods of the
class they call, over the methods minus constructors and stubs; here accessors are left out too.

Two size triggers can stand in for WMC when set: a very high number of methods (`nom-at-least`) or
of instance attributes (`noa-at-least`). Severity: `error` when two of the three measures are far
past their thresholds (twice the WMC, half the TCC, twice FEW + 1 for ATFD), `info` when the class
is large only by an alternative trigger and nothing is far past, else `warning`.

The finding explains itself with responsibility clusters: the connected components of the graph of
its methods (constructors, stubs and accessors left out), two methods linked when they use a common
attribute of the class or one calls (or reads the property of) the other; LCOM4 counts them.
Attributes and methods that most methods use (`hub-share`) are shared infrastructure (a logger, an
output stream, a `write` helper): they would glue every group into one, so they link nothing and
are listed apart as `shared`. Each cluster is a group of methods that could move out together,
with the attributes that would move with it.

What is not a god class:

- A big cohesive class (a parser whose methods all work on one cursor): TCC is high.
- An enumeration (its size is its members and their tables), skipped by default; a constant holder
  has no methods to speak of, and its constants are no instance attributes for `noa-at-least`.
- A class whose size is many tiny properties: property getters and setters of at most
  `accessor-max-cc` and three statements are accessors; they count in neither WMC, NOM nor TCC.
- Test classes (skipped by default): a test class groups independent tests.
- A class whose foreign data is one read typed as many classes: `widget.style` where `widget` may
  be an object of any of eight classes with a `style` counts once in ATFD, not eight times (the
  points-to analysis gives every class the value may have; which one's data it is, nobody knows);
  the finding lists such reads as `ambiguous_reads`.
- A class whose foreign data is the context its methods are handed: when most of its methods take
  a parameter of one name (`ctx` in each command method of a CLI framework, `request` in each
  handler method), that object is the state each call works in, not data of another class that
  the class gathers. Attributes read only through such a parameter leave ATFD (the finding lists
  them as `context_reads`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from pydantic import Field

from smellkit._internal.collector import paused_gc
from smellkit.analysis.access import (
    DataAccess,
    Use,
    context_parameters,
    data_access,
    is_property,
    is_test_code,
    read_through,
)
from smellkit.analysis.context import Context
from smellkit.analysis.smells import Smell
from smellkit.detectors.base import Detector, DetectorOptions, Example
from smellkit.detectors.god_class.cohesion import Cluster, Cohesion
from smellkit.facts import Definition
from smellkit.metrics.oo import CONSTRUCTORS
from smellkit.models import Finding, Severity

"""A responsibility cluster: {"methods": [...], "attributes": [...]}."""


class GodClassOptions(DetectorOptions):
    wmc_at_least: int = Field(
        default=47, ge=1, description="VERY HIGH for WMC: the sum of the cyclomatic complexity of "
        "the class's methods (accessors excluded) must be at least this.")
    tcc_below: float = Field(
        default=1 / 3, gt=0, le=1, description="TCC must be below this: the share of pairs of "
        "visible methods (constructors, stubs and accessors excluded) that use a common "
        "attribute of the class, directly or through the class's methods they call.")
    atfd_above: int = Field(
        default=5, ge=0, description="FEW for ATFD: the class uses more than this many distinct "
        "attributes of other classes (links it only navigates through excluded).")
    nom_at_least: int | None = Field(
        default=None, ge=1, description="Alternative size trigger: a class with at least this "
        "many methods (accessors excluded) counts as large even when WMC is below its threshold. "
        "Off when unset; 40 is a reasonable value.")
    noa_at_least: int | None = Field(
        default=None, ge=1, description="Alternative size trigger: a class with at least this "
        "many instance attributes (and annotated fields) counts as large. Off when unset.")
    accessor_max_cc: int = Field(
        default=2, ge=0, description="Property getters, setters and deleters with at most this "
        "cyclomatic complexity and three statements are accessors, not behaviour; 0 counts "
        "every method.")
    context_share: float = Field(
        default=0.5, gt=0, description="A parameter name that at least this share of the "
        "class's methods (and three) take is the context each call is handed: attributes read "
        "only through it are not foreign data. Above 1, none is.")
    hub_share: float = Field(
        default=0.5, gt=0, description="In the clusters, an attribute or method used by at least "
        "this share of the methods (and by three) is shared infrastructure: it links no group "
        "and is listed apart. Above 1, nothing is.")
    ignore_tests: bool = Field(
        default=True, description="Skip test code (test folders, test_*.py files): a test class "
        "groups independent tests, its low cohesion is by design.")
    skip_enums: bool = Field(
        default=True, description="Skip subclasses of enum.Enum and its kin: their size is their "
        "members.")


class GodClass(Detector[GodClassOptions]):
    """Large, incohesive classes that use much foreign data."""

    smell = Smell(
        name="god_class",
        description=("A large class (WMC >= 47) with low cohesion (TCC < 1/3) that uses many "
                     "attributes of other classes (ATFD > 5); the finding lists the groups of "
                     "methods that share no state and could be split out."),
        phrases=(
            "a god class: one class that holds responsibilities belonging elsewhere",
            "a god class: a class that does too much, with several unrelated responsibilities in "
            "one place",
        ),
        smellbench_name="god_classes",
        needs_call_graph=True,
    )
    Options = GodClassOptions

    def detect(self, context: Context) -> Iterable[Finding]:
        with paused_gc():
            return list(self._detect(context))

    def _detect(self, context: Context) -> Iterator[Finding]:
        index = context.index
        access = data_access(context)
        for cls in sorted(index.classes):
            definition = index.definitions.get(cls)
            if definition is None:
                continue
            if self.options.ignore_tests and is_test_code(context, cls):
                continue
            if self.options.skip_enums and access.is_enum(cls):
                continue
            methods = sorted(
                qualname for qualname in index.children.get(cls, {}).values()
                if index.definitions[qualname].kind == "method")
            if len(methods) < 2:
                continue
            accessors = {qualname for qualname in methods
                         if self.is_accessor(index.definitions[qualname])}
            behaviour = [qualname for qualname in methods if qualname not in accessors]
            wmc = sum(_cc(index.definitions[qualname]) for qualname in behaviour)
            nom = len(behaviour)
            noa = _noa(context, cls)
            by_wmc = wmc >= self.options.wmc_at_least
            by_nom = self.options.nom_at_least is not None and nom >= self.options.nom_at_least
            by_noa = self.options.noa_at_least is not None and noa >= self.options.noa_at_least
            if not (by_wmc or by_nom or by_noa):
                continue
            finding = self._judge(context, access, cls, methods, accessors,
                                  {"wmc": wmc, "nom": nom, "noa": noa},
                                  [name for name, hit in (("WMC", by_wmc), ("NOM", by_nom),
                                                          ("NOA", by_noa)) if hit])
            if finding is not None:
                yield finding

    def is_accessor(self, definition: Definition) -> bool:
        measure = definition.measure
        return (is_property(definition) and measure is not None
                and measure.cc <= self.options.accessor_max_cc and measure.lloc <= 3)

    def _judge(self, context: Context, access: DataAccess, cls: str, methods: list[str],
               accessors: set[str], size: dict[str, int], triggers: list[str]) -> Finding | None:
        options = self.options
        index = context.index
        model = Cohesion(index.definitions, access, cls, methods, accessors)
        tcc = model.tcc()
        if tcc is None or tcc >= options.tcc_below:
            return None
        uses: dict[str, Use] = {}
        for qualname in methods:
            for attribute, use in access.data_uses(model.data[qualname]).items():
                if attribute in uses:
                    uses[attribute].sites.update(use.sites)
                else:
                    uses[attribute] = Use(use.owner, use.name, sites=set(use.sites))
        context_reads = _context_reads(context, uses, methods, accessors, options.context_share)
        uses = {attribute: use for attribute, use in uses.items()
                if attribute not in context_reads}
        owners: dict[str, int] = defaultdict(int)
        atfd, ambiguous = _foreign_data(uses, owners)
        if atfd <= options.atfd_above:
            return None
        clusters, shared, unattached = model.clusters(options.hub_share)
        location = context.location(cls)
        if location is None:
            return None
        far = [size["wmc"] >= 2 * options.wmc_at_least, tcc < options.tcc_below / 2,
               atfd >= 2 * (options.atfd_above + 1)]
        severity: Severity
        if sum(far) >= 2:
            severity = "error"
        elif "WMC" not in triggers and not any(far):
            severity = "info"
        else:
            severity = "warning"
        confidence = 0.6 + 0.1 * sum(far) + (0.1 if len(clusters) >= 2 else 0.0)
        if "WMC" not in triggers:
            confidence -= 0.1
        ranked = sorted(owners, key=lambda owner: (-owners[owner], owner))
        related = tuple(found for found in (context.location(owner) for owner in ranked[:5])
                        if found is not None)
        return Finding(
            smell=self.name, location=location, severity=severity,
            confidence=round(min(1.0, max(0.0, confidence)), 2),
            message=self._message(index.definitions[cls].name, size, triggers, tcc, atfd,
                                  len(owners), clusters),
            evidence={
                "rule": f"{self._size_rule()} and TCC < {options.tcc_below:.2f} and "
                        f"ATFD > {options.atfd_above}",
                "triggers": triggers,
                "wmc": size["wmc"], "nom": size["nom"], "noa": size["noa"],
                "tcc": round(tcc, 3), "atfd": atfd,
                "ambiguous_reads": ambiguous,
                "context_reads": context_reads,
                "accessors": sorted(index.definitions[q].name for q in accessors),
                "foreign_classes": {owner: owners[owner] for owner in ranked},
                "clusters": clusters,
                "shared": shared,
                "unattached": unattached,
            },
            related=related)

    def _size_rule(self) -> str:
        options = self.options
        parts = [f"WMC >= {options.wmc_at_least}"]
        if options.nom_at_least is not None:
            parts.append(f"NOM >= {options.nom_at_least}")
        if options.noa_at_least is not None:
            parts.append(f"NOA >= {options.noa_at_least}")
        return parts[0] if len(parts) == 1 else f"({' or '.join(parts)})"

    @staticmethod
    def _message(name: str, size: dict[str, int], triggers: list[str], tcc: float, atfd: int,
                 providers: int, clusters: list[Cluster]) -> str:
        large = " and ".join(f"{trigger} {size[trigger.lower()]}" for trigger in triggers)
        of = f"{providers} other class{'es' if providers != 1 else ''}" if providers \
            else "other classes"
        text = f"{name} is large ({large}), incohesive (TCC {tcc:.2f}) and uses {atfd} " \
               f"attributes of {of}"
        if len(clusters) >= 2:
            groups = "; ".join(", ".join(cluster["methods"][:3])
                               + (", ..." if len(cluster["methods"]) > 3 else "")
                               for cluster in clusters[:3])
            more = "; ..." if len(clusters) > 3 else ""
            text += f"; its methods fall into {len(clusters)} groups that share no attribute " \
                    f"({groups}{more})"
        return text


def _foreign_data(uses: dict[str, Use], owners: dict[str, int]) -> tuple[int, list[str]]:
    """ATFD: the foreign attributes the class uses, counting once an attribute read whose receiver
    may be an object of any of several classes (`x.style` at the same lines, typed as each class
    that has a `style`): which class's data it is, nobody knows. Adds each resolved attribute to
    its owner's count in `owners`; returns ATFD and the ambiguous reads (`name` of each group)."""
    groups: dict[tuple[str, frozenset[tuple[str, int]]], list[Use]] = defaultdict(list)
    for use in uses.values():
        groups[use.name, frozenset(use.sites)].append(use)
    ambiguous: list[str] = []
    for (name, _), members in sorted(groups.items(), key=lambda item: item[0][0]):
        if len(members) > 1 and members[0].sites:
            ambiguous.append(f"{name} ({len(members)} classes)")
        else:
            for use in members:
                owners[use.owner] += 1
    return len(groups), ambiguous


def _context_reads(context: Context, uses: dict[str, Use], methods: list[str],
                   accessors: set[str], share: float) -> list[str]:
    """The foreign attributes the class reads only through a context parameter of its methods
    (accessors and constructors aside), as `Class.name`."""
    behaviour = [qualname for qualname in methods if qualname not in accessors
                 and context.index.definitions[qualname].name not in CONSTRUCTORS]
    names = context_parameters(context, behaviour, share)
    if not names:
        return []
    through = {site for qualname in behaviour for site in read_through(context, qualname, names)}
    return sorted(attribute for attribute, use in uses.items()
                  if use.sites and all((scope, line, use.name) in through
                                       for scope, line in use.sites))


def _cc(definition: Definition) -> int:
    return definition.measure.cc if definition.measure is not None else 1


def _noa(context: Context, cls: str) -> int:
    """Instance attributes, and annotated class-level fields (dataclass style)."""
    info = context.index.classes[cls]
    methods = context.index.children.get(cls, {})
    names = {attribute.name for attribute in info.attributes
             if attribute.name not in methods
             and (attribute.kind == "instance" or attribute.annotation)}
    return len(names)


# -- examples: dense code on purpose, to reach WMC 47 in few lines ---------------------------

_SHOP = r'''from store.models import Order


class Shop:
    def __init__(self):
        self.rates, self.stock, self.outbox, self.sent = {}, {}, [], 0

    def price(self, order: Order, code: str) -> float:
        rate = self.rates.get(code, 1.0)
        if code in ("a", "b") and order.total > 100 or order.express and not order.paid:
            rate *= 1.1
        for line in order.lines:
            if line and line[0] in self.rates and rate > 1 or line == "x" or line == "y":
                rate += 0.01
        return order.total * rate if order.currency == "EUR" or order.currency == "USD" else 0

    def discount(self, code: str, years: int) -> float:
        if code == "vip" and years > 3 or code == "staff" or code == "press" and years:
            return self.rates.get(code, 0.2) if years < 10 or code != "vip" else 0.3
        return self.rates.get("base", 0.0) if code and code.isalpha() and years >= 0 else 0.0

    def reserve(self, sku: str, count: int) -> bool:
        have = self.stock.get(sku, 0)
        if count <= 0 or not sku or have < count or sku.startswith("_") and count > 1:
            return False
        while count and have:
            have, count = have - 1, count - 1
        self.stock[sku] = have
        return not count and have >= 0 or sku.endswith("!")

    def restock(self, sku: str, count: int, limit: int = 100) -> int:
        if not sku or count < 0 or limit <= 0 or sku in ("void", "none") and count:
            return 0
        for _ in range(count):
            if self.stock.get(sku, 0) >= limit or sku.isupper() and count > 5:
                break
            self.stock[sku] = self.stock.get(sku, 0) + 1
        return self.stock.get(sku, 0) if sku or count else -1

    def notify(self, order: Order) -> None:
        if order.email and "@" in order.email and not order.paid or order.express and order.email:
            self.outbox.append((order.email, order.number))
        for email, number in list(self.outbox):
            if not email or number < 0 or email.endswith(".invalid") and number:
                self.outbox.remove((email, number))

    def flush(self, limit: int) -> int:
        done = 0
        while self.outbox and done < limit and (limit > 0 or not done):
            email, number = self.outbox.pop()
            done += 1 if email and number >= 0 or email == "admin" else 0
        self.sent += done if done > 0 and limit > 0 else 0
        return done
'''

_ORDER = r'''class Order:
    def __init__(self, number: int, email: str, total: float):
        self.number, self.email, self.total = number, email, total
        self.express, self.paid, self.currency, self.lines = False, False, "EUR", []
'''

_CONSOLE = r'''from term.io import Event, Screen


class Console:
    def __init__(self, screen: Screen):
        self.screen, self.history, self.aliases, self.macros = screen, [], {}, {}

    def run(self, line: str, event: Event) -> str:
        match line.split():
            case ["help"] | ["?"]:
                return "help"
            case ["quit"] | ["exit"] | ["q"]:
                return "bye"
            case ["echo", *words] if words and event.shift:
                self.history.append(line)
                return " ".join(words).upper()
            case ["echo", *words]:
                self.history.append(line)
                return " ".join(words)
            case ["repeat", n] if n.isdigit() and self.history:
                return self.history[-1] * int(n)
            case ["size"] if event.ctrl or event.alt:
                return f"{event.x}x{event.y}"
            case _ if event.key == "up" and self.history:
                return self.history[-1]
            case _ if event.key == "down" or event.key == "esc":
                return ""
        return "?"

    def alias(self, name: str, target: str) -> bool:
        if not name or not target or name in ("help", "quit") or name == target:
            return False
        if name in self.aliases and self.aliases[name] != target or len(name) > 20:
            return False
        self.aliases[name] = target
        return name in self.aliases and target not in self.aliases or target == "echo"

    def expand(self, line: str) -> str:
        head, _, rest = line.partition(" ")
        seen = 0
        while head in self.aliases and seen < 10 and (rest or head):
            head, seen = self.aliases[head], seen + 1
        return f"{head} {rest}" if rest and head or seen > 5 and rest else head

    def record(self, name: str, lines: list[str]) -> int:
        if not name or name in self.macros and lines or len(lines) > 100 or name.isdigit():
            return 0
        kept = [line for line in lines if line and not line.startswith("#") or line == "#!"]
        self.macros[name] = kept if kept or name.startswith("_") else ["echo"]
        return len(kept) if kept else -1 if name else 0

    def paint(self, text: str) -> None:
        width = self.screen.width if self.screen.width > 0 and self.screen.ready else 80
        for row, chunk in enumerate(text[i:i + width] for i in range(0, len(text), width)):
            if row >= self.screen.height or not self.screen.ready and row > 0 or not chunk:
                break
            self.screen.rows.append(chunk if self.screen.color or not chunk.strip() else chunk)
        self.screen.dirty = bool(text) and self.screen.ready or self.screen.dirty
'''

_TERM_IO = r'''class Event:
    def __init__(self, key: str):
        self.key, self.shift, self.ctrl, self.alt, self.x, self.y = key, 0, 0, 0, 0, 0


class Screen:
    def __init__(self):
        self.width, self.height, self.ready, self.color, self.dirty = 80, 24, True, True, False
        self.rows: list[str] = []
'''

_LEXER = r'''from lex.token import Token


class Lexer:
    """Big, but one responsibility: every method moves the same cursor over the same text."""

    def __init__(self, text: str):
        self.text, self.pos, self.line = text, 0, 1

    def skip(self, token: Token) -> int:
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos] in " \t" or token.raw):
            if self.text[self.pos] == "\n" or self.text[self.pos] == "\r" and token.kind:
                self.line += 1
            self.pos += 1 if self.pos < len(self.text) and not token.final else 2
        return self.pos - start if self.pos > start or token.value else 0

    def number(self, token: Token) -> str:
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isdigit() or token.hex):
            self.pos += 1 if self.text[self.pos] != "_" or token.lenient else 2
        if self.pos < len(self.text) and self.text[self.pos] == "." and not token.final:
            self.pos += 1
        return self.text[start:self.pos] if self.pos > start or token.value else "0"

    def word(self, token: Token) -> str:
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or token.raw):
            self.pos += 1 if self.text[self.pos] != "$" or token.lenient else 2
        if self.pos == start and self.pos < len(self.text) and token.kind == "name":
            self.pos += 1
        return self.text[start:self.pos] if self.pos > start or token.hex else ""

    def string(self, token: Token) -> str:
        quote, start = self.text[self.pos], self.pos + 1
        self.pos += 1
        while self.pos < len(self.text) and self.text[self.pos] != quote or token.raw:
            if self.text[self.pos] == "\\" and not token.raw or token.lenient and not quote:
                self.pos += 1
            self.pos += 1 if self.pos < len(self.text) or token.final else 0
        self.pos += 1 if self.pos < len(self.text) or token.kind == "open" else 0
        return self.text[start:self.pos - 1] if self.pos > start or token.value else ""

    def peek(self, ahead: int = 0) -> str:
        at = self.pos + ahead
        return self.text[at] if 0 <= at < len(self.text) and self.line > 0 or ahead < 0 else ""
'''

_TOKEN = r'''class Token:
    def __init__(self, kind: str):
        self.kind, self.raw, self.final, self.value, self.hex, self.lenient = kind, 0, 0, 0, 0, 0
'''

_LEVEL = r'''import enum

from logs.record import Record


class Level(enum.IntEnum):
    """An enumeration with tables: big and branchy, yet one responsibility."""

    TRACE, DEBUG, INFO, NOTICE, WARNING, ERROR, CRITICAL, ALERT, EMERGENCY = range(9)

    @property
    def color(self) -> str:
        if self is Level.TRACE or self is Level.DEBUG or self is Level.INFO and not self.value:
            return "grey"
        if self is Level.NOTICE or self is Level.WARNING or self is Level.INFO and self.value:
            return "yellow"
        if self is Level.ERROR or self is Level.CRITICAL or self is Level.ALERT or self < 0:
            return "red"
        return "magenta" if self is Level.EMERGENCY or self > 8 or self == 9 else "white"

    @property
    def syslog(self) -> int:
        if self is Level.TRACE or self is Level.DEBUG or self is Level.INFO and self > 1:
            return 7 if self is not Level.INFO or self == 2 else 6
        if self is Level.NOTICE or self is Level.WARNING or self == 4 and self > 3:
            return 5 if self is Level.NOTICE or self == 3 else 4
        return 3 if self is Level.ERROR or self == 5 else 2 if self is Level.CRITICAL else 0

    def admits(self, record: Record) -> bool:
        if record.muted or record.level < self or record.logger == "" and not record.forced:
            return False
        if record.sampled and record.count % 10 or record.thread == "noise" and self < 5:
            return False
        return record.forced or record.level >= self or record.count < 3 and not record.muted

    @classmethod
    def parse(cls, text: str) -> "Level":
        name = text.strip().upper()
        if name in ("WARN", "W") or name == "WARNING" and text or name.startswith("WARN!"):
            return cls.WARNING
        if name in ("ERR", "E") or name == "FATAL" and text or name.startswith("ERR!"):
            return cls.ERROR
        for member in cls:
            if member.name == name or member.name[:3] == name and len(name) == 3 or not name:
                return member
        raise ValueError(text)
'''

_RECORD = r'''class Record:
    def __init__(self, level: int, logger: str):
        self.level, self.logger, self.muted, self.forced = level, logger, False, False
        self.sampled, self.count, self.thread = False, 0, "main"
'''


GodClass.examples = (
    Example("A shop doing pricing, stock and mail in one class, reading many Order fields.",
            {"store/__init__.py": "", "store/models.py": _ORDER, "store/shop.py": _SHOP},
            ("store.shop.Shop",)),
    Example("A console that parses commands, keeps aliases and macros, and paints the screen.",
            {"term/__init__.py": "", "term/io.py": _TERM_IO, "term/console.py": _CONSOLE},
            ("term.console.Console",)),
    Example("A big, branchy lexer whose methods all move one cursor: cohesive, not a god class.",
            {"lex/__init__.py": "", "lex/token.py": _TOKEN, "lex/lexer.py": _LEXER}, ()),
    Example("An enumeration with large tables that reads a record's fields: an enum, skipped.",
            {"logs/__init__.py": "", "logs/record.py": _RECORD, "logs/level.py": _LEVEL}, ()),
)
