package zkshell

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
)

// Interactive reads command lines from in until "quit" or the end of the
// input, printing ZooKeeper's prompt before each; host is the connect
// string the prompt shows. Failed commands are reported and the loop goes
// on, as in ZooKeeper's shell.
func (s *Shell) Interactive(ctx context.Context, in io.Reader, host string) error {
	s.interactive = true
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 0; ; n++ {
		s.printf("[zk: %s(CONNECTED) %d] ", host, n)
		if !sc.Scan() {
			s.printf("\n")
			return sc.Err()
		}
		args := splitCommand(sc.Text())
		if len(args) > 0 && args[0] == "quit" {
			return nil
		}
		_ = s.Exec(ctx, args) // already printed; the shell carries on
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// splitCommand is ZooKeeperMain.MyCommandOptions.parseCommand: words
// split at blanks, where a word in double or single quotes keeps its
// blanks (without the quotes).
func splitCommand(line string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
				continue
			}
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// String is for debugging.
func (p *parsed) String() string { return fmt.Sprintf("%s %v %v", p.name, p.opts, p.args) }
