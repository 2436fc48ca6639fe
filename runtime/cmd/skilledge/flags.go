package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// command is one subcommand's flag set and help text.
type command struct {
	name     string
	synopsis string // "skilledge serve [DIR] [flags]"
	about    string // what it does, a paragraph
	fs       *flag.FlagSet
}

func newCommand(name, synopsis, about string) *command {
	fs := flag.NewFlagSet("skilledge "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors and help are printed by parse
	return &command{name: name, synopsis: synopsis, about: about, fs: fs}
}

func (c *command) printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", c.synopsis, c.about)
	hasFlags := false
	c.fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprint(w, "\nFlags:\n")
		printFlags(w, c.fs)
	}
}

// printFlags lists the flags of fs as flag.PrintDefaults does, but each written as it is
// typed, "--name" (the package takes both forms; the help shows the one people expect).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if arg != "" {
			line += " " + arg
		}
		line += "\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t")
		switch d := f.DefValue; {
		case d == "" || d == "false" || d == "0" || d == "[]":
		case isLiteral(d):
			line += " (default " + d + ")"
		default:
			line += fmt.Sprintf(" (default %q)", d)
		}
		fmt.Fprintln(w, line)
	})
}

// isLiteral reports whether a flag's default is a number, a boolean or a duration, which
// the help shows bare; any other default is a string, shown quoted.
func isLiteral(d string) bool {
	if d == "true" {
		return true
	}
	if _, err := strconv.ParseFloat(d, 64); err == nil {
		return true
	}
	_, err := time.ParseDuration(d)
	return err == nil
}

// parse parses args, in which flags and positional arguments may be interleaved ("--"
// ends the flags), and checks the number of positional arguments. It returns them, or
// the exit status to return: 0 after printing help to stdout, 2 after printing the error
// to stderr (usageError).
func (c *command) parse(args []string, minArgs, maxArgs int, stdout, stderr io.Writer) ([]string, int, bool) {
	var pos []string
	for {
		err := c.fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			c.printUsage(stdout)
			return nil, 0, false
		}
		if err != nil {
			return nil, c.usageError(stderr, err.Error()), false
		}
		rest := c.fs.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if len(pos) < minArgs || len(pos) > maxArgs {
		what := "too many arguments"
		if len(pos) < minArgs {
			what = "missing argument"
		}
		return nil, c.usageError(stderr, what), false
	}
	return pos, 0, true
}

// usageError prints what is wrong with the command line, and where the help is, on one
// line. It returns the exit status of bad usage, 2.
//
// Why is a usage error one line? An unknown flag printed the command's whole help, 50
// lines and more, with the error at the top, scrolled away. A usage error is now one line:
// what is wrong and "(see skilledge COMMAND --help)"; --help prints the help, to stdout.
func (c *command) usageError(stderr io.Writer, what string) int {
	fmt.Fprintf(stderr, "skilledge %s: %s (see skilledge %s --help)\n", c.name, what, c.name)
	return 2
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
