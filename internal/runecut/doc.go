// Package runecut cuts text to a byte budget without splitting a rune, so
// that what an extension or a reconcile said stays valid UTF-8 when it has
// to fit a condition message or an error snippet.
package runecut
