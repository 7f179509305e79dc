//go:build !race

package store

const exportRace = false
