//go:build !race

package blueprint

// raceEnabled: see race_on_test.go.
const raceEnabled = false
