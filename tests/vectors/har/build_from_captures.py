#!/usr/bin/env python3
"""Builds HAR 1.2 files, the way Chromium's DevTools exports them ("Save all as HAR with
content": entries with _resourceType, WebSocket entries with _webSocketMessages), from the
browser transcripts in ../liveview-captures/lv-0.20 and lv-1.x (real Chromium on real
Phoenix 1.7 / LiveView 0.20 and Phoenix 1.8 / LiveView 1.2 apps; see their README in
../shared/phoenix-captures). One HAR per dialect, the flows one after another as recorded:

    python3 tests/vectors/har/build_from_captures.py     # writes lv-0.20.har and lv-1.x.har here

The converter's output for each is checked against lv-0.20.expected.lua / lv-1.x.expected.lua
(tests/unit/record/golden_test.cpp)."""
import base64
import datetime
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.join(HERE, "..", "liveview-captures")
FLOWS = ["counter", "posts_new", "posts", "components", "upload", "login"]


def iso(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + \
        "%03dZ" % (int(ms) % 1000)


def resource_type(h):
    url = h["url"]
    if url.endswith(".js"):
        return "script"
    if url.endswith(".ico"):
        return "other"
    return "document"


def headers(pairs):
    return [{"name": n, "value": v} for n, v in pairs]


def build(dialect):
    entries = []
    for flow in FLOWS:
        capture = json.load(open(os.path.join(CAPTURES, dialect, flow + ".json")))
        start = datetime.datetime.fromisoformat(capture["recorded_at"].replace("Z", "+00:00")).timestamp() * 1000
        origin = capture["app"]["url"].rstrip("/")
        sockets = {}
        for step in capture["steps"]:
            for h in step["http"]:
                body = h.get("body")
                content = {"size": h.get("body_decoded_length") or 0, "mimeType": h.get("content_type") or ""}
                if body is not None:
                    content["text"] = body
                entries.append({
                    "startedDateTime": iso(start + h["t_ms"]), "time": 5, "_resourceType": resource_type(h),
                    "request": {"method": h["method"], "url": origin + h["url"], "httpVersion": "HTTP/1.1",
                                "headers": headers(h["request_headers"]), "queryString": [], "cookies": [],
                                "headersSize": -1, "bodySize": 0},
                    "response": {"status": h["status"], "statusText": "", "httpVersion": "HTTP/1.1",
                                 "headers": headers(h["response_headers"]), "cookies": [], "content": content,
                                 "redirectURL": h.get("location") or "", "headersSize": -1,
                                 "bodySize": h.get("body_length") or 0},
                    "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0}})
            for f in step["frames"]:
                socket = sockets.setdefault(f["socket"], {"url": f["url"], "t_ms": f["t_ms"], "messages": []})
                socket["messages"].append({"type": "send" if f["dir"] == "out" else "receive",
                                           "time": (start + f["t_ms"]) / 1000, "opcode": f["opcode"], "data": f["data"]})
        for socket in sockets.values():
            entries.append({
                "startedDateTime": iso(start + socket["t_ms"] - 1), "time": 0, "_resourceType": "websocket",
                "request": {"method": "GET", "url": socket["url"], "httpVersion": "HTTP/1.1", "headers": [],
                            "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
                "response": {"status": 101, "statusText": "Switching Protocols", "httpVersion": "HTTP/1.1",
                             "headers": [], "cookies": [], "content": {"size": 0, "mimeType": "x-unknown"},
                             "redirectURL": "", "headersSize": -1, "bodySize": 0},
                "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0},
                "_webSocketMessages": socket["messages"]})
    entries.sort(key=lambda e: e["startedDateTime"])
    return {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                    "pages": [], "entries": entries}}


def main():
    for dialect in ["lv-0.20", "lv-1.x"]:
        path = os.path.join(HERE, dialect + ".har")
        with open(path, "w") as out:
            json.dump(build(dialect), out, indent=1)
            out.write("\n")
        print("wrote", path)


if __name__ == "__main__":
    sys.exit(main())
