package responsecache

import (
	"fmt"
	"time"
)

// MaxAgeAnnotation on an ExtensionConfig turns caching on for its
// GeneratePatches and ValidateTopology handlers: its value is how long an
// answer is reused, as a Go duration such as "10m".
const MaxAgeAnnotation = "runtime-sdk-controller.dev/response-cache-max-age"

// ParseMaxAge reads MaxAgeAnnotation from annotations. present is false
// when it is not set; err names the annotation and the value when the
// value is not a positive duration.
func ParseMaxAge(annotations map[string]string) (maxAge time.Duration, present bool, err error) {
	value, present := annotations[MaxAgeAnnotation]
	if !present {
		return 0, false, nil
	}
	maxAge, err = time.ParseDuration(value)
	if err != nil || maxAge <= 0 {
		return 0, true, fmt.Errorf("annotation %s has value %q, which is not a positive duration such as \"10m\"", MaxAgeAnnotation, value)
	}
	return maxAge, true, nil
}
