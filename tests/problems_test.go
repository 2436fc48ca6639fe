package tests

import (
	"errors"
	"strings"

	"github.com/skilledge/skilledge/catalog/compile"
)

func fmtProblems(ps []compile.Problem) error {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return errors.New(b.String())
}
