#!/usr/bin/env python3
"""A partner backend as written for the live service, standard library only.

It knows only the live host and insists, like a public Python partner client does, on an
https base URL and on presigned upload URLs that are https on an *.s3*.amazonaws.com host.
Run unchanged against the simulator with two variables: HTTPS_PROXY (the simulator's
address) and SSL_CERT_FILE (its CA, from `partner-sim ca`). Prints one JSON line.
Usage: partner_flow.py AUDIO_FILE [us|jp]
"""
import base64
import hashlib
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

AUDIO, REGION = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "us")
BASE = f"https://platform-{REGION}.plaud.ai/developer/api"
CLIENT = {
    "us": ("demo-client-us", "demo-secret-us-0000", "demo-api-key-us-0000"),
    "jp": ("demo-client-jp", "demo-secret-jp-0000", "demo-api-key-jp-0000"),
}[REGION]
S3_URL = re.compile(r"^https://[a-z0-9.-]+\.s3[.-][a-z0-9.-]*amazonaws\.com/")

if not BASE.startswith("https://"):
    raise SystemExit("refusing a non-https base URL")


def call(method, url, headers=None, body=None):
    """One request; returns (status, headers, body bytes). urllib reads HTTPS_PROXY itself."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, res.headers, res.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def api(method, path, token=None, payload=None, form=None, headers=None):
    h = dict(headers or {})
    if token:
        h["Authorization"] = f"Bearer {token}"
    body = None
    if payload is not None:
        h["Content-Type"] = "application/json"
        body = json.dumps(payload).encode()
    elif form is not None:
        h["Content-Type"] = "application/x-www-form-urlencoded"
        body = urllib.parse.urlencode(form).encode()
    status, _, raw = call(method, BASE + path, h, body)
    if status >= 300:
        raise SystemExit(f"{method} {path}: {status} {raw[:300]!r}")
    return json.loads(raw)


client_id, secret, api_key = CLIENT
basic = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
partner = api("POST", "/oauth/partner/access-token", form={}, headers={"Authorization": f"Basic {basic}"})
user = api("POST", "/open/partner/users/access-token", partner["access_token"], {"user_id": "py-flow-user-0001"})
token = user["access_token"]

device = {"type": "notepro", "sn": "88100000077" + ("7" if REGION == "us" else "9")}
api("POST", "/open/partner/sdk/sn-sign", token, device)
api("POST", "/open/partner/sdk/bind", token, device)
binding = api("GET", "/open/partner/sdk/binding?" + urllib.parse.urlencode(device), token)

audio = open(AUDIO, "rb").read()
session = api(
    "POST", "/open/partner/files/upload/generate-presigned-urls", token, {"filesize": len(audio), "filetype": "mp3"}
)
parts = []
for p in session["Parts"]:
    url = p["PresignedUrl"]
    if not S3_URL.match(url):
        raise SystemExit(f"refusing a presigned URL that is not https on S3: {url}")
    start = (p["PartNumber"] - 1) * session["ChunkSize"]
    status, headers, raw = call("PUT", url, {}, audio[start : start + session["ChunkSize"]])
    if status != 200:
        raise SystemExit(f"PUT part {p['PartNumber']}: {status} {raw[:300]!r}")
    parts.append({"PartNumber": p["PartNumber"], "ETag": headers["ETag"]})
done = api(
    "POST",
    "/open/partner/files/upload/complete-upload",
    token,
    {
        "file_id": session["FileId"],
        "upload_id": session["UploadId"],
        "part_list": parts,
        "filetype": "mp3",
        "file_md5": hashlib.md5(audio).hexdigest(),
    },
)
download = done["DownloadUrl"]
if not S3_URL.match(download):
    raise SystemExit(f"refusing a DownloadUrl that is not https on S3: {download}")
status, _, fetched = call("GET", download)

keys = {"X-Client-Id": client_id, "X-Client-Api-Key": api_key}
task = api("POST", "/open/partner/ai/transcriptions/", payload={"file_url": download}, headers=keys)
for _ in range(100):
    task = api("GET", f"/open/partner/ai/transcriptions/{task['transcription_id']}", headers=keys)
    if task["status"] in ("SUCCESS", "FAILURE", "REVOKED"):
        break
    time.sleep(0.2)

print(
    json.dumps(
        {
            "user_token": token,
            "is_bind": binding["is_bind"],
            "parts": len(parts),
            "part_url": session["Parts"][0]["PresignedUrl"].split("?")[0],
            "download_url": download.split("?")[0],
            "download_status": status,
            "download_md5_ok": hashlib.md5(fetched).hexdigest() == hashlib.md5(audio).hexdigest(),
            "transcription": task["status"],
            "duration": task.get("data", {}).get("duration"),
        }
    )
)
