#!/usr/bin/env python3
"""functions.py OBJECT CALLGRIND_FILE... : the functions of OBJECT (a path ending) that ran, one per line.

Reads callgrind's output (valgrind --tool=callgrind --demangle=no): names are written once as
"fn=(id) name" and then as "fn=(id)"; objects likewise with "ob="/"cob=". A name with callgrind's
recursion mark ("name'2") is the function itself. Files are read in order and each name is printed
after the file that first ran it, so what ran in the first file comes first; within one file the names
are sorted, so that recording again changes only what really changed.
"""
import re
import sys

ENTRY = re.compile(r"^(c?)(ob|fn)=\((\d+)\)(?: (.*))?$")


def functions(target, paths):
    seen = set()
    for path in paths:
        new = []
        objects, names, current = {}, {}, None
        with open(path, errors="replace") as f:
            for line in f:
                m = ENTRY.match(line.rstrip("\n"))
                if not m:
                    continue
                called, kind, number, name = m.groups()
                table = objects if kind == "ob" else names
                if name:
                    table[number] = name
                if called:
                    continue
                if kind == "ob":
                    current = objects.get(number)
                    continue
                name = names.get(number)
                if not name or not current or not current.endswith(target):
                    continue
                name = re.sub(r"'\d+$", "", name)
                if name.startswith("0x") or name in seen:
                    continue
                seen.add(name)
                new.append(name)
        yield from sorted(new)


if __name__ == "__main__":
    for name in functions(sys.argv[1], sys.argv[2:]):
        print(name)
