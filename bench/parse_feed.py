"""Parses a feed file with podcastparser or feedparser, for podq-bench's feed-parsing row.

Usage: parse_feed.py podcastparser|feedparser FILE
Prints one JSON line: the episode count and the enclosure URLs in order, so the bench can check
that every parser read the same episodes.
"""
import json
import sys

library, path = sys.argv[1], sys.argv[2]
urls = []
if library == "podcastparser":
    import podcastparser
    with open(path, "rb") as stream:
        feed = podcastparser.parse("file://" + path, stream)
    episodes = feed.get("episodes", [])
    for episode in episodes:
        urls.extend(e["url"] for e in episode.get("enclosures", []))
elif library == "feedparser":
    import feedparser
    feed = feedparser.parse(path)
    episodes = feed.entries
    for entry in episodes:
        urls.extend(e.get("href") for e in entry.get("enclosures", []))
else:
    sys.exit("unknown library " + library)
print(json.dumps({"episodes": len(episodes), "enclosures": urls}))
