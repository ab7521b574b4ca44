package blueprint

import (
	"fmt"

	"github.com/dop251/goja"
)

// maxJSString bounds what one built-in call of a $js script may produce: the characters of a
// string (repeat, padStart, padEnd, join, JSON.stringify) and the elements of an array (fill,
// Array.from). goja checks its time limit between instructions only, so one built-in call
// that builds a huge value (String.prototype.repeat of 2^27 characters takes seconds and
// hundreds of megabytes) would run on past the limit; these are refused before they start.
const maxJSString = 1 << 22

// jsGuards replaces the built-ins that can amplify a small script into a huge value with
// versions that check the size first and throw a RangeError naming the limit. The checks
// that need a loop (join, JSON.stringify) run in JavaScript, where the time limit applies.
var jsGuards = goja.MustCompile("guards", fmt.Sprintf(`(function () {
  'use strict';
  var max = %d;
  function tooLarge(what, unit) {
    throw new RangeError(what + ': the result would have more than ' + max + ' ' + unit + ', the $js limit');
  }
  function define(obj, name, fn) {
    Object.defineProperty(obj, name, {value: fn, writable: true, configurable: true, enumerable: false});
  }
  var nativeRepeat = String.prototype.repeat, nativePadStart = String.prototype.padStart,
      nativePadEnd = String.prototype.padEnd, nativeJoin = Array.prototype.join,
      nativeFill = Array.prototype.fill, nativeFrom = Array.from, nativeStringify = JSON.stringify;
  define(String.prototype, 'repeat', function repeat(count) {
    var n = Math.floor(Number(count));
    if (n > 0 && String(this).length * n > max) tooLarge('String.prototype.repeat', 'characters');
    return nativeRepeat.call(this, count);
  });
  define(String.prototype, 'padStart', function padStart(length, fill) {
    if (Number(length) > max) tooLarge('String.prototype.padStart', 'characters');
    return nativePadStart.call(this, length, fill);
  });
  define(String.prototype, 'padEnd', function padEnd(length, fill) {
    if (Number(length) > max) tooLarge('String.prototype.padEnd', 'characters');
    return nativePadEnd.call(this, length, fill);
  });
  define(Array.prototype, 'join', function join(separator) {
    var len = Number(this.length) || 0;
    if (len > max) tooLarge('Array.prototype.join', 'characters');
    var sep = separator === undefined ? 1 : String(separator).length;
    var total = len > 0 ? (len - 1) * sep : 0;
    for (var i = 0; i < len && total <= max; i++) {
      var e = this[i];
      if (e !== undefined && e !== null) total += typeof e === 'string' ? e.length : String(e).length;
    }
    if (total > max) tooLarge('Array.prototype.join', 'characters');
    return nativeJoin.call(this, separator);
  });
  define(Array.prototype, 'fill', function fill(value, start, end) {
    if (Number(this.length) > max) tooLarge('Array.prototype.fill', 'elements');
    return nativeFill.call(this, value, start, end);
  });
  define(Array, 'from', function from(items, mapFn, thisArg) {
    if (items !== undefined && items !== null && Number(items.length) > max) tooLarge('Array.from', 'elements');
    return nativeFrom.call(this, items, mapFn, thisArg);
  });
  // size estimates the characters JSON.stringify would write, stopping once over the limit.
  // A sub-object is written each time it appears, so it counts each time, but its size is
  // computed once (seen), which keeps the estimate linear in the number of distinct objects.
  // Past a depth of 200 the native call decides (it reports cycles).
  function size(v, depth, seen) {
    if (typeof v === 'string') return v.length + 2;
    if (v === null || typeof v !== 'object') return 8;
    if (depth > 200) return 0;
    var known = seen.get(v);
    if (known !== undefined) return known;
    var total = 2, i;
    if (Array.isArray(v)) {
      for (i = 0; i < v.length && total <= max; i++) total += size(v[i], depth + 1, seen) + 1;
    } else {
      var keys = Object.keys(v);
      for (i = 0; i < keys.length && total <= max; i++) total += size(v[keys[i]], depth + 1, seen) + keys[i].length + 4;
    }
    seen.set(v, total);
    return total;
  }
  define(JSON, 'stringify', function stringify(value, replacer, space) {
    if (size(value, 0, new Map()) > max) tooLarge('JSON.stringify', 'characters');
    return nativeStringify.call(JSON, value, replacer, space);
  });
})();`, maxJSString), true)
