#!/usr/bin/env python3
"""check-image-config.py DOCKERFILE ARCHIVE [NAME=VALUE...]: the registry-free image (ci/local/cluster/images.sh) against
the runtime stage (the last FROM) of the Dockerfile that stays the recipe for registries. Compared: USER, WORKDIR,
ENTRYPOINT, every ENV (the image may add its own, e.g. JAVA_HOME, as a base image does), EXPOSE, every COPY
destination present in the layer, and every file the ENTRYPOINT names by absolute path (the jar, the class-data
archive) present in the layer. NAME=VALUE are build arguments (ARG defaults apply otherwise).
Prints one `ok`/`DRIFT` line per item; exits 1 on any drift.
"""
import json
import re
import shlex
import sys
import tarfile


def instructions(path):
    """(KEYWORD, rest) of every instruction: comments dropped, backslash continuations joined."""
    out, buf = [], ""
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if not buf and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if buf and line.lstrip().startswith("#"):
            continue  # a comment inside a continued instruction
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        keyword, _, rest = buf.strip().partition(" ")
        out.append((keyword.upper(), rest.strip()))
        buf = ""
    return out


def expand(text, args):
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: args.get(m.group(1) or m.group(2), ""), text)


def runtime_stage(path, build_args):
    """The last stage's settings as the Docker builder would put them into the image config."""
    global_args, args, stage = {}, {}, None
    for keyword, rest in instructions(path):
        if keyword == "FROM":
            stage = {"user": "", "workdir": "/", "entrypoint": None, "env": {}, "ports": set(), "copies": []}
            args = {}
        elif keyword == "ARG":
            name, _, default = rest.partition("=")
            value = build_args.get(name, global_args.get(name, default) if stage is not None else default)
            (args if stage is not None else global_args)[name] = value
        elif stage is None:
            continue
        elif keyword == "USER":
            stage["user"] = expand(rest, args)
        elif keyword == "WORKDIR":
            stage["workdir"] = expand(rest, args)
        elif keyword == "ENTRYPOINT":
            stage["entrypoint"] = json.loads(rest)
        elif keyword == "EXPOSE":
            for port in expand(rest, args).split():
                stage["ports"].add(port if "/" in port else port + "/tcp")
        elif keyword == "ENV":
            for pair in shlex.split(rest):
                name, _, value = pair.partition("=")
                stage["env"][name] = expand(value, {**args, **stage["env"]})
        elif keyword == "COPY":
            words = [w for w in shlex.split(expand(rest, args)) if not w.startswith("--")]
            stage["copies"].append(words[-1])
    if stage is None:
        sys.exit(f"{path}: no FROM")
    return stage


def image(archive):
    """(config, set of paths in the layer) of a one-manifest OCI archive."""
    with tarfile.open(archive) as t:
        def blob(digest):
            return t.extractfile("blobs/sha256/" + digest.split(":", 1)[1]).read()
        index = json.loads(t.extractfile("index.json").read())
        manifest = json.loads(blob(index["manifests"][0]["digest"]))
        config = json.loads(blob(manifest["config"]["digest"]))["config"]
        paths = set()
        for layer in manifest["layers"]:
            member = t.extractfile("blobs/sha256/" + layer["digest"].split(":", 1)[1])
            with tarfile.open(fileobj=member, mode="r|") as lt:
                paths.update("/" + m.name.lstrip("./") for m in lt)
    return config, paths


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    dockerfile, archive = argv[0], argv[1]
    build_args = dict(a.split("=", 1) for a in argv[2:])
    want = runtime_stage(dockerfile, build_args)
    config, paths = image(archive)
    env = dict(e.split("=", 1) for e in config.get("Env", []))
    checks = [
        ("USER", want["user"], config.get("User", "")),
        ("WORKDIR", want["workdir"], config.get("WorkingDir", "")),
        ("ENTRYPOINT", want["entrypoint"], config.get("Entrypoint")),
        ("EXPOSE", sorted(want["ports"]), sorted(config.get("ExposedPorts", {}))),
    ]
    checks += [(f"ENV {k}", v, env.get(k)) for k, v in sorted(want["env"].items())]
    drift = 0
    for what, dockerfile_value, image_value in checks:
        if dockerfile_value == image_value:
            print(f"ok - {what} {json.dumps(image_value)}")
        else:
            drift += 1
            print(f"DRIFT - {what}: Dockerfile {json.dumps(dockerfile_value)}, image {json.dumps(image_value)}")
    for dest in want["copies"]:
        if dest.rstrip("/") in paths:
            print(f"ok - COPY destination {dest} is in the image")
        else:
            drift += 1
            print(f"DRIFT - COPY destination {dest} is missing from the image")
    # a file the ENTRYPOINT names (an argument, or a flag's value such as the class-data archive's) must be there
    for arg in want["entrypoint"] or []:
        named = arg.split("=", 1)[1] if arg.startswith("-") and "=" in arg else arg
        if not named.startswith("/"):
            continue
        if named in paths:
            print(f"ok - ENTRYPOINT's {named} is in the image")
        else:
            drift += 1
            print(f"DRIFT - ENTRYPOINT's {named} is missing from the image")
    print(f"{archive}: {'no drift' if not drift else f'{drift} drift(s)'} from {dockerfile}")
    return 1 if drift else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
