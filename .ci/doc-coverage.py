#!/usr/bin/env python3
"""Lists every public or open declaration of Shoal and ShoalCombine that has no `///` doc comment.

Usage (from the package root):

    python3 .ci/doc-coverage.py                 # dumps the symbol graphs, then checks
    python3 .ci/doc-coverage.py --list-excluded # also lists the members the rule below excludes

Exits 1, listing each undocumented declaration as `file:line: Symbol.path (kind)`, if there
is any; 0 otherwise. CI (`.ci/run`) runs it after the DocC step.

The source is the compiler's symbol graph (`swift package dump-symbol-graph`), not a regex:
it holds every declaration of access level public or more, where it is declared, and the
doc comment attached to it. It is dumped twice:

- with `--skip-inherited-docs`, where a declaration has a doc comment only if it has its
  own `///` comment (the compiler would otherwise copy the comment of a protocol
  requirement the declaration satisfies, or of the member it overrides);
- without it, where a declaration with no comment of its own shows the comment it inherits
  and the module that comment comes from, so we know which requirement it satisfies.

What is checked: every symbol declared in `Sources/Shoal/` or `Sources/ShoalCombine/`
(members that protocol extensions in these modules give to types, and members other
modules give to these types, are counted once, at their declaration or not at all).
Extension blocks themselves are not declarations and are not checked; their members are.

What is excluded: a member with no comment of its own that satisfies a requirement of a
protocol declared outside Shoal (the Swift standard library, Foundation, Swift
concurrency, OpenCombine, which stands in for Combine) and is pure protocol plumbing,
whose meaning is the protocol's: its inherited comment is what DocC shows. Both conditions
must hold: the compiler says which requirement the member satisfies (the inherited
comment comes from one of EXTERNAL_MODULES), and the member's name is in PLUMBING below.
So a `next()` that satisfies nothing is still reported, and so is a member of an external
protocol that a Realm user calls for its Realm meaning (`count`, `isEmpty`, `first`,
`last`, element subscripts, `init(arrayLiteral:)` and the like are not plumbing: they are
reported and documented). Members that satisfy a requirement of a Shoal protocol (a
`Results.count` for `RealmCollection.count`) are reported too: each collection documents
its own members, as Realm does.
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

    SwiftPM (6.1 to 6.3 at least) also tries the test-discovery modules it synthesizes
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


def load(directory):
    """The symbols declared in our sources, keyed by (precise identifier, graph file)."""
    symbols = {}
    for module in MODULES:
        for path in glob.glob(os.path.join(directory, f"{module}.symbols.json")) + \
                glob.glob(os.path.join(directory, f"{module}@*.symbols.json")):
            graph = json.load(open(path))
            for symbol in graph["symbols"]:
                location = symbol.get("location")
                if symbol.get("accessLevel") not in ("public", "open") or not location:
                    continue
                if symbol["kind"]["identifier"] == "swift.extension":
                    continue
                uri = location["uri"].removeprefix("file://")
                relative = os.path.relpath(uri, os.getcwd())
                if not relative.startswith(SOURCE_DIRS):
                    continue
                symbols[(symbol["identifier"]["precise"], os.path.basename(path))] = (symbol, relative)
    return symbols


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list-excluded", action="store_true",
                        help="also list the members excluded as protocol plumbing")
    parser.add_argument("--own-docs-graphs", help="a directory dumped with --skip-inherited-docs (skips dumping)")
    parser.add_argument("--inherited-docs-graphs", help="a directory dumped without it (skips dumping)")
    arguments = parser.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

    if arguments.own_docs_graphs and arguments.inherited_docs_graphs:
        own = load(arguments.own_docs_graphs)
        inherited = load(arguments.inherited_docs_graphs)
    else:
        # dump-symbol-graph writes both runs to the same directory: load the first before the second.
        own = load(dump_symbol_graphs(["--skip-inherited-docs"]))
        inherited = load(dump_symbol_graphs([]))

    # One entry per declaration: a member a protocol extension gives to several types is one
    # declaration, documented or not once.
    declarations = {}
    for key, (symbol, relative) in own.items():
        position = symbol["location"]["position"]
        where = (relative, position["line"] + 1, position["character"] + 1)
        synthesized = "::SYNTHESIZED::" in symbol["identifier"]["precise"]
        documented = "docComment" in symbol
        inherited_symbol = inherited.get(key, (None, None))[0] or symbol
        inherited_from = inherited_symbol.get("docComment", {}).get("module")
        entry = declarations.get(where)
        if entry is None or (entry["synthesized"] and not synthesized):
            declarations[where] = {
                "path": ".".join(symbol["pathComponents"]),
                "title": symbol["names"]["title"],
                "kind": symbol["kind"]["displayName"].lower(),
                "synthesized": synthesized,
                "documented": documented or (entry or {}).get("documented", False),
                "inherited_from": inherited_from or (entry or {}).get("inherited_from"),
            }
        else:
            entry["documented"] = entry["documented"] or documented
            entry["inherited_from"] = entry["inherited_from"] or inherited_from

    undocumented, excluded, documented = [], [], 0
    for where, entry in sorted(declarations.items()):
        line = f"{where[0]}:{where[1]}: {entry['path']} ({entry['kind']})"
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
