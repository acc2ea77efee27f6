// Command dockerfile-check reads Dockerfiles with BuildKit's own parser (the one `docker build` uses) and checks
// the project's image policy, and rehearses a Dockerfile's build stages on this machine, where there is no Docker.
//
//	dockerfile-check lint FILE...              one `ok - ` / `FAIL - ` line per check and file; exit 1 on a FAIL
//	dockerfile-check arg NAME FILE             the default value of ARG NAME (global or in any stage)
//	dockerfile-check entrypoint FILE           the final stage's exec-form ENTRYPOINT, one argument a line
//	dockerfile-check rehearse CONTEXT FILE DIR [NAME=VALUE...]
//	                                           runs every stage but the last one on the host, with DIR standing
//	                                           for the image's filesystem root: WORKDIR, ARG, ENV, COPY (from
//	                                           CONTEXT, honouring its .dockerignore) and RUN; then checks that
//	                                           every `COPY --from=<stage>` source of the last stage was produced.
//	                                           The last stage's RUNs are never run here (they set up the image).
//	                                           NAME=VALUE are build arguments (`docker build --build-arg`).
package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// Dockerfile is one parsed file: its stages, its global ARGs, and the parse and BuildKit lint warnings.
type Dockerfile struct {
	Stages   []instructions.Stage
	MetaArgs []instructions.ArgCommand
	Warnings []string
}

func load(file string) (*Dockerfile, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res, err := parser.Parse(f)
	if err != nil {
		return nil, err
	}
	d := &Dockerfile{}
	for _, w := range res.Warnings {
		d.Warnings = append(d.Warnings, w.Short)
	}
	// BuildKit's built-in checks (those of `docker build --check` that run at parse time)
	lint := linter.New(&linter.Config{Warn: func(rule, _, _, msg string, loc []parser.Range) {
		line := 0
		if len(loc) > 0 {
			line = loc[0].Start.Line
		}
		d.Warnings = append(d.Warnings, fmt.Sprintf("line %d: %s: %s", line, rule, msg))
	}})
	d.Stages, d.MetaArgs, err = instructions.Parse(res.AST, lint)
	if err != nil {
		return nil, err
	}
	if len(d.Stages) == 0 {
		return nil, fmt.Errorf("no FROM")
	}
	return d, nil
}

// argDefault is the default of ARG name, global or in any stage ("" and false when absent or without default).
func (d *Dockerfile) argDefault(name string) (string, bool) {
	args := append([]instructions.ArgCommand{}, d.MetaArgs...)
	for _, s := range d.Stages {
		for _, c := range s.Commands {
			if a, ok := c.(*instructions.ArgCommand); ok {
				args = append(args, *a)
			}
		}
	}
	for _, a := range args {
		for _, kv := range a.Args {
			if kv.Key == name && kv.Value != nil {
				return *kv.Value, true
			}
		}
	}
	return "", false
}

func (d *Dockerfile) metaEnv() map[string]string {
	env := map[string]string{}
	for _, a := range d.MetaArgs {
		for _, kv := range a.Args {
			env[kv.Key] = kv.ValueString()
		}
	}
	return env
}

func expand(s string, env map[string]string) string {
	return os.Expand(s, func(k string) string { return env[k] })
}

// check is one policy rule over a parsed file: "" when it holds, else why not.
type check struct {
	name string
	run  func(d *Dockerfile) string
}

var numericUser = regexp.MustCompile(`^([0-9]+)(:[0-9]+)?$`)

var checks = []check{
	{"base images pinned by tag (no :latest)", func(d *Dockerfile) string {
		env := d.metaEnv()
		var bad []string
		for i, s := range d.Stages {
			base := expand(s.BaseName, env)
			if _, isStage := instructions.HasStage(d.Stages[:i], base); isStage || base == "scratch" {
				continue
			}
			if strings.Contains(base, "@sha256:") {
				continue
			}
			ref := base[strings.LastIndex(base, "/")+1:]
			colon := strings.LastIndex(ref, ":")
			if colon < 0 || ref[colon+1:] == "latest" {
				bad = append(bad, base)
			}
		}
		if len(bad) > 0 {
			return "unpinned: " + strings.Join(bad, ", ")
		}
		return ""
	}},
	{"runs as a numeric non-root USER", func(d *Dockerfile) string {
		user := ""
		for _, c := range final(d).Commands {
			if u, ok := c.(*instructions.UserCommand); ok {
				user = u.User
			}
		}
		m := numericUser.FindStringSubmatch(user)
		if m == nil {
			return fmt.Sprintf("last USER of the final stage is %q, want a numeric uid[:gid]", user)
		}
		if uid, _ := strconv.Atoi(m[1]); uid == 0 {
			return "USER is root (0)"
		}
		return ""
	}},
	{"exec-form ENTRYPOINT (SIGTERM reaches the process)", func(d *Dockerfile) string {
		e := entrypoint(d)
		if e == nil {
			return "no ENTRYPOINT in the final stage"
		}
		if e.PrependShell {
			return "shell-form ENTRYPOINT: /bin/sh -c would be PID 1 and swallow SIGTERM"
		}
		return ""
	}},
	{"JVM sized for containers (-XX:MaxRAMPercentage, -XX:+ExitOnOutOfMemoryError)", func(d *Dockerfile) string {
		e := entrypoint(d)
		if e == nil {
			return "no ENTRYPOINT"
		}
		line := strings.Join(e.CmdLine, " ")
		var missing []string
		for _, flag := range []string{"-XX:MaxRAMPercentage=", "-XX:+ExitOnOutOfMemoryError"} {
			if !strings.Contains(line, flag) {
				missing = append(missing, flag)
			}
		}
		if len(missing) > 0 {
			return "ENTRYPOINT lacks " + strings.Join(missing, " ")
		}
		return ""
	}},
	{"EXPOSE 8080", func(d *Dockerfile) string {
		for _, c := range final(d).Commands {
			if e, ok := c.(*instructions.ExposeCommand); ok {
				for _, p := range e.Ports {
					if p == "8080" || p == "8080/tcp" {
						return ""
					}
				}
			}
		}
		return "the final stage does not EXPOSE 8080"
	}},
	{"OCI labels (source, version from ARG VERSION)", func(d *Dockerfile) string {
		labels := map[string]string{}
		for _, c := range final(d).Commands {
			if l, ok := c.(*instructions.LabelCommand); ok {
				for _, kv := range l.Labels {
					labels[kv.Key] = unquote(kv.Value)
				}
			}
		}
		var bad []string
		if !strings.HasPrefix(labels["org.opencontainers.image.source"], "https://") {
			bad = append(bad, "org.opencontainers.image.source missing")
		}
		if v := labels["org.opencontainers.image.version"]; v != "$VERSION" && v != "${VERSION}" {
			bad = append(bad, fmt.Sprintf("org.opencontainers.image.version is %q, want ${VERSION}", v))
		}
		if _, ok := d.argDefault("VERSION"); !ok {
			bad = append(bad, "no ARG VERSION with a default")
		}
		return strings.Join(bad, "; ")
	}},
}

// unquote drops the quotes of a LABEL value, which BuildKit keeps until it expands the value.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

func final(d *Dockerfile) *instructions.Stage { return &d.Stages[len(d.Stages)-1] }

func entrypoint(d *Dockerfile) *instructions.EntrypointCommand {
	var e *instructions.EntrypointCommand
	for _, c := range final(d).Commands {
		if ep, ok := c.(*instructions.EntrypointCommand); ok {
			e = ep
		}
	}
	return e
}

func lint(files []string) int {
	failed := 0
	report := func(file, name, problem string) {
		if problem == "" {
			fmt.Printf("ok - %s: %s\n", file, name)
		} else {
			failed++
			fmt.Printf("FAIL - %s: %s: %s\n", file, name, problem)
		}
	}
	for _, file := range files {
		d, err := load(file)
		if err != nil {
			report(file, "parses (BuildKit parser)", err.Error())
			continue
		}
		report(file, "parses (BuildKit parser and its checks)", strings.Join(d.Warnings, "; "))
		for _, c := range checks {
			report(file, c.name, c.run(d))
		}
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// rehearsal runs build stages on the host; root stands for "/" of every stage (they share one tree, which is
// what a multi-stage build looks like from the COPY --from side).
type rehearsal struct {
	context   string
	root      string
	ignore    *patternmatcher.PatternMatcher
	buildArgs map[string]string
}

// declare applies an ARG instruction to a stage's environment: a build argument wins over the default, and an
// ARG without either keeps the value it inherited (a global ARG) or is empty.
func (r *rehearsal) declare(a *instructions.ArgCommand, env map[string]string) {
	for _, kv := range a.Args {
		if v, ok := r.buildArgs[kv.Key]; ok {
			env[kv.Key] = v
		} else if kv.Value != nil {
			env[kv.Key] = expand(*kv.Value, env)
		} else if _, ok := env[kv.Key]; !ok {
			env[kv.Key] = ""
		}
	}
}

func (r *rehearsal) hostPath(p string) string {
	return filepath.Join(r.root, filepath.FromSlash(path.Clean("/"+p)))
}

func (r *rehearsal) copyFromContext(c *instructions.CopyCommand, workdir string, env map[string]string) error {
	dest := expand(c.DestPath, env)
	toDir := strings.HasSuffix(dest, "/") || len(c.SourcePaths) > 1
	if !path.IsAbs(dest) {
		dest = path.Join(workdir, dest)
	}
	for _, src := range c.SourcePaths {
		src = expand(src, env)
		matches, err := filepath.Glob(filepath.Join(r.context, filepath.FromSlash(src)))
		if err != nil {
			return err
		}
		if len(matches) == 0 {
			return fmt.Errorf("COPY %s: not found in the build context", src)
		}
		for _, m := range matches {
			rel, _ := filepath.Rel(r.context, m)
			info, err := os.Stat(m)
			if err != nil {
				return err
			}
			target := r.hostPath(dest)
			if !info.IsDir() && toDir {
				target = filepath.Join(target, filepath.Base(m))
			}
			if err := r.copyTree(m, rel, target); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyTree copies src (a file, or a directory's contents as COPY does) to target, skipping .dockerignore'd paths.
func (r *rehearsal) copyTree(src, rel, target string) error {
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		sub, _ := filepath.Rel(src, p)
		ctxRel := filepath.ToSlash(filepath.Join(rel, sub))
		if ignored, _ := r.ignore.MatchesOrParentMatches(ctxRel); ignored {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		out := filepath.Join(target, sub)
		if e.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		return copyFile(p, out)
	})
}

func copyFile(from, to string) error {
	info, err := os.Stat(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func (r *rehearsal) runStage(s instructions.Stage, env map[string]string) error {
	workdir := "/"
	for _, c := range s.Commands {
		switch c := c.(type) {
		case *instructions.ArgCommand:
			r.declare(c, env)
		case *instructions.EnvCommand:
			for _, kv := range c.Env {
				env[kv.Key] = expand(kv.Value, env)
			}
		case *instructions.WorkdirCommand:
			p := expand(c.Path, env)
			if !path.IsAbs(p) {
				p = path.Join(workdir, p)
			}
			workdir = p
			if err := os.MkdirAll(r.hostPath(workdir), 0o755); err != nil {
				return err
			}
		case *instructions.CopyCommand:
			if c.From != "" {
				return fmt.Errorf("line %d: COPY --from in a build stage is not rehearsed", c.Location()[0].Start.Line)
			}
			fmt.Fprintf(os.Stderr, "[rehearse %s] %s\n", s.Name, c.String())
			if err := r.copyFromContext(c, workdir, env); err != nil {
				return err
			}
		case *instructions.RunCommand:
			if len(c.FlagsUsed) > 0 {
				return fmt.Errorf("RUN %v: flags are not rehearsed", c.FlagsUsed)
			}
			argv := c.CmdLine
			if c.PrependShell {
				argv = []string{"/bin/sh", "-c", strings.Join(c.CmdLine, " ")}
			}
			fmt.Fprintf(os.Stderr, "[rehearse %s] RUN %s (in %s)\n", s.Name, strings.Join(c.CmdLine, " "), workdir)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = r.hostPath(workdir)
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			cmd.Env = os.Environ()
			for k, v := range env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("RUN %s: %w", strings.Join(c.CmdLine, " "), err)
			}
		case *instructions.LabelCommand, *instructions.ExposeCommand, *instructions.UserCommand,
			*instructions.EntrypointCommand, *instructions.CmdCommand:
			// image metadata: nothing to do on the host
		default:
			return fmt.Errorf("%T is not rehearsed", c)
		}
	}
	return nil
}

func rehearse(contextDir, file, root string, buildArgs map[string]string) error {
	d, err := load(file)
	if err != nil {
		return err
	}
	r := &rehearsal{context: contextDir, root: root, buildArgs: buildArgs}
	var patterns []string
	if f, err := os.Open(filepath.Join(contextDir, ".dockerignore")); err == nil {
		patterns, err = ignorefile.ReadAll(f)
		f.Close()
		if err != nil {
			return err
		}
	}
	if r.ignore, err = patternmatcher.New(patterns); err != nil {
		return err
	}
	for _, s := range d.Stages[:len(d.Stages)-1] {
		if err := r.runStage(s, r.globalEnv(d)); err != nil {
			return fmt.Errorf("stage %s: %w", s.Name, err)
		}
	}
	last := final(d)
	env := r.globalEnv(d)
	for _, c := range last.Commands {
		if a, ok := c.(*instructions.ArgCommand); ok {
			r.declare(a, env)
		}
		if run, ok := c.(*instructions.RunCommand); ok {
			if err := r.contextMounts(run, env); err != nil {
				return err
			}
		}
		c, ok := c.(*instructions.CopyCommand)
		if !ok || c.From == "" {
			continue
		}
		if _, isStage := instructions.HasStage(d.Stages, c.From); !isStage {
			return fmt.Errorf("COPY --from=%s: not a stage of this file", c.From)
		}
		for _, src := range c.SourcePaths {
			src = expand(src, env)
			if _, err := os.Stat(r.hostPath(src)); err != nil {
				return fmt.Errorf("COPY --from=%s %s: not produced by the build stage", c.From, src)
			}
			fmt.Fprintf(os.Stderr, "[rehearse] final stage gets %s from stage %s\n", src, c.From)
		}
	}
	return nil
}

// contextMounts checks the files a final-stage RUN binds from the build context (--mount=type=bind without from):
// each must be in the context and not excluded by .dockerignore, or the image build fails there.
func (r *rehearsal) contextMounts(run *instructions.RunCommand, env map[string]string) error {
	// the parser leaves a mount's fields to the expansion of build arguments
	if err := run.Expand(func(w string) (string, error) { return expand(w, env), nil }); err != nil {
		return err
	}
	for _, m := range instructions.GetMounts(run) {
		if m.Type != instructions.MountTypeBind || m.From != "" {
			continue
		}
		src := path.Clean(m.Source)
		if ignored, _ := r.ignore.MatchesOrParentMatches(src); ignored {
			return fmt.Errorf("RUN --mount source %s: excluded by .dockerignore", src)
		}
		if _, err := os.Stat(filepath.Join(r.context, src)); err != nil {
			return fmt.Errorf("RUN --mount source %s: not in the build context", src)
		}
		fmt.Fprintf(os.Stderr, "[rehearse] final stage RUN mounts %s from the build context\n", src)
	}
	return nil
}

// globalEnv is what a stage inherits: the global ARGs, with the build arguments given for them.
func (r *rehearsal) globalEnv(d *Dockerfile) map[string]string {
	env := d.metaEnv()
	for k := range env {
		if v, ok := r.buildArgs[k]; ok {
			env[k] = v
		}
	}
	return env
}

func main() {
	usage := "usage: dockerfile-check lint FILE... | arg NAME FILE | entrypoint FILE | rehearse CONTEXT FILE DIR [NAME=VALUE...]"
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	switch args := os.Args[2:]; {
	case os.Args[1] == "lint" && len(args) > 0:
		os.Exit(lint(args))
	case os.Args[1] == "arg" && len(args) == 2:
		d, err := load(args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		v, ok := d.argDefault(args[0])
		if !ok {
			fmt.Fprintf(os.Stderr, "%s: no ARG %s with a default\n", args[1], args[0])
			os.Exit(1)
		}
		fmt.Println(v)
	case os.Args[1] == "entrypoint" && len(args) == 1:
		d, err := load(args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		e := entrypoint(d)
		if e == nil || e.PrependShell {
			fmt.Fprintf(os.Stderr, "%s: no exec-form ENTRYPOINT\n", args[0])
			os.Exit(1)
		}
		for _, a := range e.CmdLine {
			fmt.Println(a)
		}
	case os.Args[1] == "rehearse" && len(args) >= 3:
		buildArgs := map[string]string{}
		for _, a := range args[3:] {
			k, v, ok := strings.Cut(a, "=")
			if !ok || k == "" {
				fmt.Fprintln(os.Stderr, usage)
				os.Exit(2)
			}
			buildArgs[k] = v
		}
		if err := rehearse(args[0], args[1], args[2], buildArgs); err != nil {
			fmt.Fprintln(os.Stderr, "rehearse:", err)
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
}
