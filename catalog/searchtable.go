package catalog

import "fmt"

// TableSearch has one row, the index's search table (package catalog/search: its fields,
// how the build writes them and how a query reads them), when the build wrote one. It is
// built from the skills the index lists, so a private catalog's view has its own, with its
// own statistics, and the older versions' index has none.
const TableSearch uint32 = 17

// searchFields is the least number of fields a search table has (search.NumFields).
const searchFields = 7

// Search returns the cells of the search table's row, nil when the index has none.
func (p *Pack) Search() [][]byte {
	t := p.tables[TableSearch]
	if t.rows == 0 {
		return nil
	}
	cells := make([][]byte, t.fields)
	for f := range cells {
		cells[f] = p.cell(TableSearch, 0, f)
	}
	return cells
}

// checkSearch checks the search table's shape; its contents are checked by whoever opens
// them (search.Open).
func (p *Pack) checkSearch() error {
	if t := p.tables[TableSearch]; t.rows > 1 || t.rows == 1 && t.fields < searchFields {
		return fmt.Errorf("%w: the search table is short or long", ErrCorrupt)
	}
	return nil
}
