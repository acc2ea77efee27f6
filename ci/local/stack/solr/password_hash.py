"""Solr's form of a BasicAuthPlugin credential: "base64(sha256(sha256(salt + password))) base64(salt)", with a fresh
random salt. Imported by the scripts that write a security.json; run as a script it hashes the password on stdin."""
import base64
import hashlib
import os
import sys


def solr_hash(password: str) -> str:
    salt = os.urandom(32)
    digest = hashlib.sha256(hashlib.sha256(salt + password.encode("utf-8")).digest()).digest()
    return base64.b64encode(digest).decode() + " " + base64.b64encode(salt).decode()


if __name__ == "__main__":
    print(solr_hash(sys.stdin.read()))
