// Command skilledge serves a folder of Agent Skills over MCP from plugin.wasm, checks such
// a folder, and builds the files a deployment needs. Run "skilledge help" for usage.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

func main() {
	os.Exit(doMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// doMain runs the command line args (without the program name) and returns the exit
// status: 0 success, 1 failure, 2 bad usage. SIGINT and SIGTERM end serve and stdio
// gracefully.
func doMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, stdin, stdout, stderr)
}

// run is doMain with the context that ends serving.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		return cmdServe(ctx, rest, stdout, stderr)
	case "stdio":
		return cmdStdio(ctx, rest, stdin, stdout, stderr)
	case "validate":
		return cmdValidate(rest, stdout, stderr)
	case "init":
		return cmdInit(rest, stdout, stderr)
	case "build":
		return cmdBuild(ctx, rest, stdout, stderr)
	case "verify":
		return cmdVerify(ctx, rest, verify.Escaping(stdout), verify.Escaping(stderr))
	case "search":
		return cmdSearch(ctx, rest, verify.Escaping(stdout), verify.Escaping(stderr))
	case "pull":
		return cmdPull(ctx, rest, verify.Escaping(stdout), verify.Escaping(stderr))
	case "outdated":
		return cmdOutdated(ctx, rest, verify.Escaping(stdout), verify.Escaping(stderr))
	case "list":
		return cmdList(rest, verify.Escaping(stdout), verify.Escaping(stderr))
	case "remove":
		return cmdRemove(rest, verify.Escaping(stdout), verify.Escaping(stderr))
	case "key":
		return cmdKey(rest, stdout, stderr)
	case "sources":
		return cmdSources(ctx, rest, stdout, stderr)
	case "stats":
		return cmdStats(ctx, rest, verify.Escaping(stdout), verify.Escaping(stderr))
	case "version", "--version", "-version":
		if len(rest) > 0 && !isHelp(rest[0]) {
			fmt.Fprintf(stderr, "skilledge version: unexpected argument %q\n", rest[0])
			return 2
		}
		printVersion(stdout)
		return 0
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 && cmd == "help" {
			return run(ctx, []string{rest[0], "-h"}, stdin, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "skilledge: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

const usage = `skilledge serves a folder of Agent Skills over MCP, from WebAssembly.

Usage:
  skilledge serve [DIR] [flags]     serve DIR over HTTP (default: the built-in examples);
                                    --auth FILE makes every request carry a credential
  skilledge stdio [DIR] [flags]     serve DIR over stdin/stdout (the MCP stdio transport)
  skilledge validate DIR            check every skill in DIR and report each problem
  skilledge init NAME [DIR]         make DIR/NAME/SKILL.md (DIR: skills), a new skill that validates
  skilledge build [DIR] -o OUT      write OUT/catalog.pack, OUT/assets/, OUT/plugin.wasm, the JavaScript host and its entries (Workers, Deno, Bun, Node)
  skilledge sources update [NAME]   resolve the sources DIR's skilledge.yaml mounts (git repositories)
                                    afresh, and write their commits to DIR/sources.lock
  skilledge verify URL [flags]      check a deployment's skills against their DVS trust root
                                    (--token for a private deployment)
  skilledge search URL|DIR QUERY    find the skills a catalog (or a folder) has for QUERY, best first
  skilledge pull URL [DIR] [flags]  install a catalog's skills into DIR (an agent's skills
                                    folder), verified, recorded in DIR/skills.lock
  skilledge outdated [DIR] [flags]  list the installed skills whose source changed
  skilledge list [DIR]              list the skills pull installed in DIR: version, source, local changes
  skilledge remove [DIR] NAME       remove an installed skill; a later pull leaves it out
  skilledge key [flags]             make a static API key for a private deployment, and its
                                    entry for the auth file (serve --auth FILE)
  skilledge stats URL|FILE          what a deployment answered: top skills, activations,
                                    error rates, p50 and p99, from serve --metrics or a JSON log
  skilledge version (--version)     print the version
  skilledge help [COMMAND]          print this, or a command's flags

Flags and DIR may come in any order. Run "skilledge COMMAND -h" for a command's flags.
`
