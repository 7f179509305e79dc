//go:build !race

package storetest

const exportRace = false
