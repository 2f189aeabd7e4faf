package pactstats

import (
	_ "embed"
	"encoding/csv"
	"strings"
)

// The PACT paper's world regions (its region context effects, the 7.8 pp
// spread: plot_section4_demographics_pastel.py's region_context_table).
// The authors' country -> region table is not in their release (their
// region CSVs come ready-made), so pactregions.csv is ngkit's: the eight
// regions by the names their REGION_SHORT prints, the countries of NormAD
// and CultureAtlas where the usual UN-style grouping puts them, and
// ngkit's culture profiles (american, korean, ...) with their country's.
// A country in none has no region: its items count in the model's overall
// rate and in no region, as the authors drop "Other/Unmapped" from the
// figure. scripts/pact_authors/compare.py reads the same file.
//
//go:embed pactregions.csv
var pactRegionsCSV string

var regionByCountry = func() map[string]string {
	rows, err := csv.NewReader(strings.NewReader(pactRegionsCSV)).ReadAll()
	if err != nil {
		panic("pactregions.csv: " + err.Error())
	}
	m := map[string]string{}
	for _, r := range rows[1:] {
		m[r[0]] = r[1]
	}
	return m
}()

// regionOf is the region of a country or culture name, "" when none.
func regionOf(country string) string {
	return regionByCountry[strings.ToLower(strings.TrimSpace(country))]
}
