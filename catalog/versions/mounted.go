package versions

import (
	"context"
	"errors"
	"io"
)

// Mounted returns src with every path under the folder at ("platform": the path a
// source's skills are mounted at in the catalog composed of it), so that its history is
// read as the history of the skills at their paths in that catalog: their older versions
// at their version paths there, and their changes named so.
func Mounted(src Source, at string) Source { return &mounted{src, at + "/"} }

type mounted struct {
	Source
	prefix string
}

// Stream streams a blob as src does (gitRepo.Stream), so that Tree streams a source's large
// files too.
func (m *mounted) Stream(ctx context.Context, blob string) (io.ReadCloser, error) {
	s, ok := m.Source.(streamer)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return s.Stream(ctx, blob)
}

// Files implements Source: src's files under the prefix.
func (m *mounted) Files(ctx context.Context, commit string) ([]File, error) {
	files, err := m.Source.Files(ctx, commit)
	for i := range files {
		files[i].Path = m.prefix + files[i].Path
	}
	return files, err
}
