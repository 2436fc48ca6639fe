package pull

import "os"

// exchangeByRenames swaps the folders a and b by renames: b aside, a to b, the old b to
// a. Between the first two the skill is briefly absent, never mixed.
func exchangeByRenames(a, b string) error {
	aside := a + ".old"
	if err := os.Rename(b, aside); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		os.Rename(aside, b)
		return err
	}
	return os.Rename(aside, a)
}
