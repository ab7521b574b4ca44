//go:build !race

package points

// raceEnabled: see race_on_test.go.
const raceEnabled = false
