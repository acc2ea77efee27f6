#!/usr/bin/env python3
"""Builds an OCI image archive from a root filesystem directory, with no registry and no daemon.

Usage: oci-image.py REF ROOTFS OUT.tar [--entrypoint JSON] [--cmd JSON] [--user U] [--env K=V]...
                    [--workdir D] [--expose PORT[/PROTO]]... [--label K=V]...

REF is localhost/NAME:TAG (a tag is required and `latest` is refused: the kubelet pulls `:latest` on every
start, and the local node has no registry to pull from). The archive is an OCI image layout tarball with one
uncompressed layer; its index names the image REF (io.containerd.image.name), so `ctr images import` (or
`ci/local/cluster.sh import OUT.tar`) registers it under that exact name. The layer is reproducible: entries
sorted, mtimes 0, owner root, modes as in ROOTFS (make /tmp 1777 there if the image needs it).
"""
import argparse
import hashlib
import io
import json
import os
import sys
import tarfile
import tempfile

DEFAULT_PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
EPOCH = "1970-01-01T00:00:00Z"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("ref")
    p.add_argument("rootfs")
    p.add_argument("out")
    p.add_argument("--entrypoint", type=json.loads, help="JSON array")
    p.add_argument("--cmd", type=json.loads, help="JSON array")
    p.add_argument("--user")
    p.add_argument("--env", action="append", default=[], metavar="K=V")
    p.add_argument("--workdir", default="/")
    p.add_argument("--expose", action="append", default=[], metavar="PORT[/PROTO]")
    p.add_argument("--label", action="append", default=[], metavar="K=V")
    a = p.parse_args(argv)
    name, sep, tag = a.ref.rpartition(":")
    if not sep or "/" in tag or not name:
        p.error(f"{a.ref}: a tag is required (localhost/NAME:TAG)")
    if tag == "latest":
        p.error(f"{a.ref}: ':latest' means 'always pull' to the kubelet; use a version tag")
    for opt in ("entrypoint", "cmd"):
        v = getattr(a, opt)
        if v is not None and not (isinstance(v, list) and all(isinstance(s, str) for s in v)):
            p.error(f"--{opt} must be a JSON array of strings")
    for kv in a.env + a.label:
        if "=" not in kv:
            p.error(f"{kv}: expected K=V")
    if not os.path.isdir(a.rootfs):
        p.error(f"{a.rootfs}: not a directory")
    return a


def as_root(ti):
    """Reproducible entries owned by root; device files and sockets have no place in an image."""
    if not (ti.isfile() or ti.isdir() or ti.issym() or ti.islnk()):
        return None
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = "root"
    ti.mtime = 0
    return ti


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def image_config(a, layer_digest):
    env = [e for e in a.env if not e.startswith("PATH=")]
    path = [e for e in a.env if e.startswith("PATH=")] or [DEFAULT_PATH]
    cfg = {"Env": path[-1:] + env, "WorkingDir": a.workdir}
    if a.entrypoint is not None:
        cfg["Entrypoint"] = a.entrypoint
    if a.cmd is not None:
        cfg["Cmd"] = a.cmd
    if a.user:
        cfg["User"] = a.user
    if a.expose:
        cfg["ExposedPorts"] = {(p if "/" in p else p + "/tcp"): {} for p in a.expose}
    if a.label:
        cfg["Labels"] = dict(kv.split("=", 1) for kv in a.label)
    return {"created": EPOCH, "architecture": "amd64", "os": "linux", "config": cfg,
            "rootfs": {"type": "layers", "diff_ids": ["sha256:" + layer_digest]},
            "history": [{"created": EPOCH, "created_by": "ci/local/cluster/oci-image.py"}]}


def main(argv):
    a = parse_args(argv)
    out_dir = os.path.dirname(os.path.abspath(a.out))
    os.makedirs(out_dir, exist_ok=True)
    # the layer goes to a temporary file: a JVM rootfs is hundreds of MiB, no need to hold it in memory
    with tempfile.NamedTemporaryFile(dir=out_dir, prefix=".layer-", delete=False) as tmp:
        layer_path = tmp.name
    try:
        with tarfile.open(layer_path, "w", format=tarfile.PAX_FORMAT) as t:
            for name in sorted(os.listdir(a.rootfs)):   # tarfile.add sorts inside directories itself
                t.add(os.path.join(a.rootfs, name), arcname=name, filter=as_root)
        layer_digest, layer_size = sha256_file(layer_path), os.path.getsize(layer_path)

        blobs = {}

        def blob(obj):
            data = json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()
            d = hashlib.sha256(data).hexdigest()
            blobs[d] = data
            return {"digest": "sha256:" + d, "size": len(data)}

        config = blob(image_config(a, layer_digest))
        manifest = blob({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                         "config": {"mediaType": "application/vnd.oci.image.config.v1+json", **config},
                         "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar",
                                     "digest": "sha256:" + layer_digest, "size": layer_size}]})
        index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                 "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json", **manifest,
                                "platform": {"architecture": "amd64", "os": "linux"},
                                "annotations": {"io.containerd.image.name": a.ref,
                                                "org.opencontainers.image.ref.name": a.ref.rpartition(":")[2]}}]}

        def add_bytes(t, name, data):
            ti = tarfile.TarInfo(name)
            ti.size, ti.mode = len(data), 0o644
            t.addfile(ti, io.BytesIO(data))

        tmp_out = a.out + ".tmp"
        with tarfile.open(tmp_out, "w") as t:
            add_bytes(t, "oci-layout", b'{"imageLayoutVersion":"1.0.0"}')
            add_bytes(t, "index.json", json.dumps(index).encode())
            for d, data in blobs.items():
                add_bytes(t, "blobs/sha256/" + d, data)
            ti = tarfile.TarInfo("blobs/sha256/" + layer_digest)
            ti.size, ti.mode = layer_size, 0o644
            with open(layer_path, "rb") as f:
                t.addfile(ti, f)
        os.replace(tmp_out, a.out)
    finally:
        os.unlink(layer_path)
    print(f"{a.out}: {a.ref} ({layer_size} byte layer, manifest {manifest['digest']})")


if __name__ == "__main__":
    main(sys.argv[1:])
