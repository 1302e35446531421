// Package objstatus holds what both controllers do to status the same way:
// set a condition without disturbing its transition time when nothing
// flips, and patch status only when it changed, so that an unchanged
// outcome costs no write and wakes no watcher.
package objstatus
