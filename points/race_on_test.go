//go:build race

package points

// raceEnabled: the race detector reserves terabytes of address space, so a child process
// cannot be given an address-space limit.
const raceEnabled = true
