//go:build !linux

package pull

// exchange swaps the folders a and b by two renames.
func exchange(a, b string) error { return exchangeByRenames(a, b) }
