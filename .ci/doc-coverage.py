#!/usr/bin/env python3
"""Lists every public or open declaration of Shoal and ShoalCombine that has no `///` doc comment.

Usage (from the package root):

    python3 .ci/doc-coverage.py                 # dumps the symbol graphs, then checks
    python3 .ci/doc-coverage.py --list-excluded # also lists the members the rule below excludes

Exits 1, listing each undocumented declaration as `file:line: Symbol.path (kind)`, if there
is any; 0 otherwise. CI (`.ci/run`) runs it after the DocC step.

The source is the compiler's symbol graph (`swift package dump-symbol-graph`), not a regex
over the sources: it holds every declaration, its access level, where it is declared and the
doc comment attached to it. It is dumped twice, at the internal access level (see `load`):

- with `--skip-inherited-docs`, where a declaration has a doc comment only if it has its
  own `///` comment (the compiler would otherwise copy the comment of a protocol
  requirement the declaration satisfies, or of the member it overrides);
- without it, where a declaration with no comment of its own shows the comment it inherits
  and the module that comment comes from, which says whose requirement it satisfies.

What is checked: every declaration in `Sources/Shoal/` or `Sources/ShoalCombine/` that is
public API: declared public or open, in types and protocols that are public or open too.
A member that a protocol extension gives to several types is one declaration, checked
once, at its line. Extension blocks themselves are not declarations and are not checked;
their members are. Declarations marked `@available(*, unavailable)` are not in the symbol
graph (nor in DocC) and are not checked.

What is excluded: a member with no comment of its own that satisfies a requirement of a
protocol declared outside Shoal (the Swift standard library, Foundation, Swift
concurrency, and OpenCombine, which stands in for Combine) and is pure protocol plumbing,
whose meaning is the protocol's (DocC lists it under that protocol's implementations).
Both conditions must hold: the compiler says which requirement the member satisfies (its
inherited comment comes from one of EXTERNAL_MODULES), and the member's name is in
PLUMBING below. So:

- `==`, `<`, `hash(into:)`, `startIndex`, `endIndex`, `index(after:)`, `makeIterator()`,
  `next()`, `description`, `encode(to:)`, `init(from:)`, `id`, `rawValue`,
  `errorDescription`, `receive(subscriber:)` and the like need no comment of their own;
- a `next()` that satisfies no requirement is still reported, and so is a member of a
  protocol extension (the compiler names no requirement for those);
- members a Realm user calls for their Realm meaning are not plumbing, even where they
  also satisfy a standard-library requirement: `count`, `isEmpty`, `first`, `last`,
  element subscripts (a `List`'s subscript writes), literal initializers, associated-type
  aliases (`Index`, `Element`...) are reported and documented;
- members that satisfy a requirement of a Shoal protocol (`AnyRealmCollection.count` for
  `RealmCollection.count`, `Bool.persistedType` for `PersistableValue.persistedType`) are
  reported: each type says what the requirement means for it, as Realm documents each of
  its collections' members.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

MODULES = ("Shoal", "ShoalCombine")
SOURCE_DIRS = tuple(f"Sources/{m}/" for m in MODULES)

# Modules whose protocols' requirements may be satisfied without a comment of our own.
EXTERNAL_MODULES = {
    "Swift", "_Concurrency", "Foundation", "FoundationEssentials", "FoundationInternationalization",
    "OpenCombine", "Combine",
}

# Members (by symbol-graph title) that are plumbing when they satisfy an external requirement.
PLUMBING = {
    # Equatable, Comparable, Hashable
    "==(_:_:)", "!=(_:_:)", "<(_:_:)", "<=(_:_:)", ">(_:_:)", ">=(_:_:)", "hash(into:)", "hashValue",
    # Sequence, IteratorProtocol, AsyncSequence, AsyncIteratorProtocol
    "makeIterator()", "next()", "makeAsyncIterator()", "underestimatedCount",
    # Collection, BidirectionalCollection, RandomAccessCollection (index arithmetic)
    "startIndex", "endIndex", "indices", "index(after:)", "index(before:)", "formIndex(after:)",
    "formIndex(before:)", "index(_:offsetBy:)", "index(_:offsetBy:limitedBy:)", "distance(from:to:)",
    # CustomStringConvertible, CustomDebugStringConvertible, LosslessStringConvertible
    "description", "debugDescription",
    # Encodable, Decodable
    "encode(to:)", "init(from:)",
    # Identifiable, RawRepresentable, CaseIterable
    "id", "rawValue", "init(rawValue:)", "allCases",
    # LocalizedError, CustomNSError
    "errorDescription", "failureReason", "recoverySuggestion", "helpAnchor", "errorCode",
    "errorUserInfo", "errorDomain",
    # OpenCombine's Publisher, Subscriber, Subscription, Cancellable
    "receive(subscriber:)", "receive(subscription:)", "receive(_:)", "receive(completion:)",
    "request(_:)", "cancel()", "combineIdentifier",
}


def dump_symbol_graphs(extra_flags):
    """Runs `swift package dump-symbol-graph` and returns the directory it wrote.

    SwiftPM (6.3.1, where this was written) also tries the test-discovery modules it synthesizes
    (`shoalPackageTests`, `shoalPackageDiscoveredTests`), fails to load them and exits 1
    after writing every other graph. So the exit status is not trusted: the run counts
    if it wrote fresh graphs for both of our modules, and fails otherwise.
    """
    command = ["swift", "package", "dump-symbol-graph", *extra_flags]
    started = time.time()
    result = subprocess.run(command, capture_output=True, text=True)
    output = result.stdout + result.stderr
    match = re.search(r"Files written to (\S+)", output)
    fresh = match is not None and all(
        os.path.exists(graph) and os.path.getmtime(graph) >= started - 1
        for graph in (os.path.join(match.group(1), f"{module}.symbols.json") for module in MODULES))
    if not fresh:
        sys.stderr.write(output)
        sys.exit(f"doc-coverage: `{' '.join(command)}` did not write the graphs of {', '.join(MODULES)}")
    return match.group(1)


PUBLIC = ("public", "open")
# Relationships that make a symbol part of another: its visibility is bounded by its parent's.
PARENT_KINDS = ("memberOf", "requirementOf", "optionalRequirementOf")


def load(directory, only_public=True):
    """The public API declared in our sources (or, not only_public, every symbol declared
    there), keyed by (precise identifier, graph file).

    The graphs are dumped at the internal access level, because a `public` member of an
    extension of an internal protocol is public API of every public type conforming to it
    (`RealmCollectionImpl` gives `Results` its `subscript`, `first`, `realm`...) and appears
    only there, as a member synthesized into the type. A symbol is public API if it is
    declared public or open and so is every type or protocol it belongs to; a parent missing
    from a `Module@Other` graph is a type of the other module, which is public.
    """
    symbols = {}
    for module in MODULES:
        for path in glob.glob(os.path.join(directory, f"{module}.symbols.json")) + \
                glob.glob(os.path.join(directory, f"{module}@*.symbols.json")):
            graph = json.load(open(path))
            extends_other_module = "@" in os.path.basename(path)
            by_id = {symbol["identifier"]["precise"]: symbol for symbol in graph["symbols"]}
            parents = {}
            for relationship in graph["relationships"]:
                if relationship["kind"] in PARENT_KINDS:
                    parents.setdefault(relationship["source"], []).append(relationship["target"])

            def is_public(identifier, seen=()):
                symbol = by_id.get(identifier)
                if symbol is None:
                    return extends_other_module
                if symbol.get("accessLevel") not in PUBLIC or identifier in seen:
                    return symbol.get("accessLevel") in PUBLIC
                return all(is_public(parent, seen + (identifier,)) for parent in parents.get(identifier, []))

            top_level_access = {symbol["pathComponents"][0]: symbol.get("accessLevel")
                                for symbol in graph["symbols"] if len(symbol["pathComponents"]) == 1}

            for identifier, symbol in by_id.items():
                location = symbol.get("location")
                if not location or symbol["kind"]["identifier"] == "swift.extension":
                    continue
                uri = location["uri"][len("file://"):] if location["uri"].startswith("file://") else location["uri"]
                relative = os.path.relpath(uri, os.getcwd())
                if not relative.startswith(SOURCE_DIRS) or (only_public and not is_public(identifier)):
                    continue
                # Named after a public type where one exists (`Results.first`, not
                # `RealmCollectionImpl.first`); types of other modules are public.
                symbol["namedPublicly"] = top_level_access.get(symbol["pathComponents"][0], "public") in PUBLIC
                symbols[(identifier, os.path.basename(path))] = (symbol, relative)
    return symbols


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list-excluded", action="store_true",
                        help="also list the members excluded as protocol plumbing")
    parser.add_argument("--own-docs-graphs",
                        help="symbol graphs dumped at the internal level with --skip-inherited-docs")
    parser.add_argument("--inherited-docs-graphs",
                        help="symbol graphs dumped at the internal level without it (with the "
                             "other option: check those graphs instead of dumping new ones)")
    arguments = parser.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

    if arguments.own_docs_graphs and arguments.inherited_docs_graphs:
        own = load(arguments.own_docs_graphs)
        inherited = load(arguments.inherited_docs_graphs, only_public=False)
    else:
        # dump-symbol-graph writes both runs to the same directory: load the first before the second.
        own = load(dump_symbol_graphs(["--minimum-access-level", "internal", "--skip-inherited-docs"]))
        inherited = load(dump_symbol_graphs(["--minimum-access-level", "internal"]), only_public=False)

    def where(symbol, relative):
        position = symbol["location"]["position"]
        return (relative, position["line"] + 1, position["character"] + 1)

    # The module a declaration's inherited comment comes from (so, whose requirement it
    # satisfies), from any symbol at its location: the original may be a member of an
    # internal protocol, whose copies in public types are the public ones.
    inherited_from = {}
    for symbol, relative in inherited.values():
        module = symbol.get("docComment", {}).get("module")
        if module:
            inherited_from.setdefault(where(symbol, relative), module)

    # One entry per declaration: a member a protocol extension gives to several types is one
    # declaration, documented or not once.
    declarations = {}
    for symbol, relative in own.values():
        at = where(symbol, relative)
        # Which symbol names the declaration: one named after a public type, the original before a copy.
        rank = (symbol["namedPublicly"], "::SYNTHESIZED::" not in symbol["identifier"]["precise"])
        entry = declarations.get(at)
        documented = "docComment" in symbol or (entry is not None and entry["documented"])
        if entry is None or entry["rank"] < rank:
            entry = declarations[at] = {
                "path": ".".join(symbol["pathComponents"]),
                "title": symbol["names"]["title"],
                "kind": symbol["kind"]["displayName"].lower(),
                "rank": rank,
                "inherited_from": inherited_from.get(at),
            }
        entry["documented"] = documented

    undocumented, excluded, documented = [], [], 0
    for at, entry in sorted(declarations.items()):
        line = f"{at[0]}:{at[1]}: {entry['path']} ({entry['kind']})"
        if entry["documented"]:
            documented += 1
        elif entry["inherited_from"] in EXTERNAL_MODULES and entry["title"] in PLUMBING:
            excluded.append(f"{line}, satisfies a {entry['inherited_from']} requirement")
        else:
            undocumented.append(line)

    if arguments.list_excluded:
        print("Excluded as protocol plumbing:")
        for line in excluded:
            print("  " + line)
    for line in undocumented:
        print(line)
    checked = documented + len(undocumented)
    print(f"doc-coverage: {documented} of {checked} public declarations of "
          f"{' and '.join(MODULES)} documented ({100 * documented / max(checked, 1):.1f}%), "
          f"{len(excluded)} protocol-plumbing members excluded, {len(undocumented)} undocumented.")
    return 1 if undocumented else 0


if __name__ == "__main__":
    sys.exit(main())
