package tests

import (
	"errors"
	"strings"

	"github.com/skilledge/skilledge/catalog/build"
)

func fmtProblems(ps []build.Problem) error {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return errors.New(b.String())
}
