/* CAValueRef and CGColorRef through the C ABI: every constructor and reader,
 * nesting, equality, ownership, and bad handles. Valgrind checks the
 * retain/release bookkeeping. */
#include <stdint.h>
#include <stdlib.h>
#include "qz_test.h"

static void scalar_values(void) {
    CAValueRef n = CAValueCreateNumber(2.5);
    CHECK(CAValueGetType(n) == CAValueTypeNumber);
    CHECK(CAValueGetNumber(n) == 2.5);
    CHECK(CAValueGetBool(n) == true);
    CAValueRef b = CAValueCreateBool(true);
    CHECK(CAValueGetType(b) == CAValueTypeBool && CAValueGetBool(b) && CAValueGetNumber(b) == 1);
    CAValueRef p = CAValueCreatePoint(CGPointMake(1, 2));
    CHECK(CAValueGetType(p) == CAValueTypePoint && CAValueGetPoint(p).y == 2);
    CAValueRef s = CAValueCreateSize(CGSizeMake(3, 4));
    CHECK(CAValueGetType(s) == CAValueTypeSize && CAValueGetSize(s).height == 4);
    CAValueRef r = CAValueCreateRect(CGRectMake(1, 2, 3, 4));
    CHECK(CAValueGetType(r) == CAValueTypeRect && CGRectEqualToRect(CAValueGetRect(r), CGRectMake(1, 2, 3, 4)));
    CAValueRef nullRect = CAValueCreateRect(CGRectNull);
    CHECK(CGRectIsNull(CAValueGetRect(nullRect)));
    CAValueRef a = CAValueCreateAffineTransform(CGAffineTransformMakeScale(2, 3));
    CHECK(CAValueGetType(a) == CAValueTypeAffineTransform && CAValueGetAffineTransform(a).d == 3);
    /* An affine value widens to a 3D transform. */
    CHECK(CAValueGetTransform3D(a).m22 == 3 && CAValueGetTransform3D(a).m33 == 1);
    CAValueRef t = CAValueCreateTransform3D(CATransform3DMakeTranslation(1, 2, 3));
    CHECK(CAValueGetType(t) == CAValueTypeTransform3D && CAValueGetTransform3D(t).m43 == 3);
    CAValueRef str = CAValueCreateString("h\xc3\xa9llo");
    CHECK(CAValueGetType(str) == CAValueTypeString && strcmp(CAValueGetString(str), "h\xc3\xa9llo") == 0);
    CAValueRef nan = CAValueCreateNumber(NAN);
    CHECK(isnan(CAValueGetNumber(nan)));
    CHECK(CAValueGetType(CAValueGetNull()) == CAValueTypeNull);
    CHECK(CAValueGetNull() == CAValueGetNull());
    CHECK_NO_ERROR();
    CARelease(n); CARelease(b); CARelease(p); CARelease(s); CARelease(r); CARelease(nullRect);
    CARelease(a); CARelease(t); CARelease(str); CARelease(nan);
}

static void wrong_value_types(void) {
    CAValueRef str = CAValueCreateString("x");
    CHECK(CAValueGetNumber(str) == 0); CHECK_ERROR(QZErrorWrongType);
    CAValueGetNumber(str);
    CHECK(strstr(QZGetLastErrorMessage(), "CAValueGetNumber") != NULL);
    CHECK(strstr(QZGetLastErrorMessage(), "value holds a string, not a number") != NULL);
    QZClearLastError();
    CHECK(CAValueGetPoint(str).x == 0); CHECK_ERROR(QZErrorWrongType);
    CHECK(CAValueGetSize(str).width == 0); CHECK_ERROR(QZErrorWrongType);
    CHECK(CGRectIsEmpty(CAValueGetRect(str))); CHECK_ERROR(QZErrorWrongType);
    CHECK(CGAffineTransformIsIdentity(CAValueGetAffineTransform(str))); CHECK_ERROR(QZErrorWrongType);
    CHECK(CATransform3DIsIdentity(CAValueGetTransform3D(str))); CHECK_ERROR(QZErrorWrongType);
    CHECK(CAValueGetColor(str) == NULL); CHECK_ERROR(QZErrorWrongType);
    CHECK(CAValueGetBool(str) == false); CHECK_ERROR(QZErrorWrongType);
    CHECK(CAValueGetCount(str) == 0); CHECK_ERROR(QZErrorWrongType);
    CHECK(CAValueGetArrayItem(str, 0) == NULL); CHECK_ERROR(QZErrorWrongType);
    CHECK(CAValueGetDictionaryItem(str, "k") == NULL); CHECK_ERROR(QZErrorWrongType);
    CHECK(CAValueGetObject(str) == NULL); CHECK_ERROR(QZErrorWrongType);
    CAValueRef n = CAValueCreateNumber(1);
    CHECK(CAValueGetString(n) == NULL); CHECK_ERROR(QZErrorWrongType);
    CARelease(n);
    CARelease(str);
}

static void collections(void) {
    CAValueRef one = CAValueCreateNumber(1), two = CAValueCreateNumber(2);
    CAValueRef items[] = { one, two, CAValueGetNull() };
    CAValueRef array = CAValueCreateArray(items, 3);
    CHECK(CAValueGetType(array) == CAValueTypeArray && CAValueGetCount(array) == 3);
    CHECK(CAValueGetArrayItem(array, 1) == two);
    CHECK(CAValueGetType(CAValueGetArrayItem(array, 2)) == CAValueTypeNull);
    CHECK(CAValueGetArrayItem(array, 3) == NULL); CHECK_ERROR(QZErrorOutOfRange);
    CHECK(CAValueGetArrayItem(array, (size_t)-1) == NULL); CHECK_ERROR(QZErrorOutOfRange);

    const char *keys[] = { "scale", "touchPoints", "scale" };
    CAValueRef inner[] = { one, array, two };
    CAValueRef dict = CAValueCreateDictionary(keys, inner, 3);
    CHECK(CAValueGetType(dict) == CAValueTypeDictionary);
    CHECK(CAValueGetCount(dict) == 2);                      /* repeated key: one entry */
    CHECK(CAValueGetDictionaryItem(dict, "scale") == two);  /* the last value wins */
    CHECK(strcmp(CAValueGetDictionaryKeyAtIndex(dict, 0), "scale") == 0);
    CHECK(strcmp(CAValueGetDictionaryKeyAtIndex(dict, 1), "touchPoints") == 0);
    CHECK(CAValueGetDictionaryKeyAtIndex(dict, 2) == NULL); CHECK_ERROR(QZErrorOutOfRange);
    CHECK(CAValueGetDictionaryKeyAtIndex(array, 0) == NULL);
    CHECK(strstr(QZGetLastErrorMessage(), "value holds an array, not a dictionary") != NULL);
    CHECK_ERROR(QZErrorWrongType);
    CHECK(CAValueGetDictionaryItem(dict, "missing") == NULL);
    CHECK_NO_ERROR();
    /* Nesting: dictionary -> array -> number. */
    CAValueRef nested = CAValueGetDictionaryItem(dict, "touchPoints");
    CHECK(CAValueGetNumber(CAValueGetArrayItem(nested, 0)) == 1);

    CAValueRef outerItems[] = { dict, array };
    CAValueRef outer = CAValueCreateArray(outerItems, 2);
    CHECK(CAValueGetCount(CAValueGetDictionaryItem(CAValueGetArrayItem(outer, 0), "touchPoints")) == 3);

    CAValueRef empty = CAValueCreateArray(NULL, 0);
    CHECK(empty != NULL && CAValueGetCount(empty) == 0);
    CAValueRef emptyDict = CAValueCreateDictionary(NULL, NULL, 0);
    CHECK(emptyDict != NULL && CAValueGetCount(emptyDict) == 0);
    CHECK_NO_ERROR();

    /* Collections keep their items alive. */
    CARelease(one); CARelease(two); CARelease(array); CARelease(dict);
    CHECK(CAValueGetNumber(CAValueGetArrayItem(CAValueGetArrayItem(outer, 1), 1)) == 2);
    CARelease(outer); CARelease(empty); CARelease(emptyDict);
}

static void collection_errors(void) {
    CAValueRef one = CAValueCreateNumber(1);
    CAValueRef withNull[] = { one, NULL };
    CHECK(CAValueCreateArray(withNull, 2) == NULL); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAValueCreateArray(NULL, 2) == NULL); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAValueCreateArray(withNull, (size_t)-5) == NULL); CHECK_ERROR(QZErrorOutOfRange);
    CGColorRef color = CGColorCreateSRGB(1, 0, 0, 1);
    CAValueRef notValues[] = { one, (CAValueRef)(void *)color };
    CHECK(CAValueCreateArray(notValues, 2) == NULL); CHECK_ERROR(QZErrorWrongType);
    const char *keys[] = { "a", NULL };
    CAValueRef vals[] = { one, one };
    CHECK(CAValueCreateDictionary(keys, vals, 2) == NULL); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAValueCreateDictionary(NULL, vals, 1) == NULL); CHECK_ERROR(QZErrorNullArgument);
    CAValueRef dict = CAValueCreateDictionary(keys, vals, 1);
    CHECK(CAValueGetDictionaryItem(dict, NULL) == NULL); CHECK_ERROR(QZErrorNullArgument);
    CARelease(dict);
    CARelease(one);
    CGColorRelease(color);
}

static void equality(void) {
    CAValueRef a = CAValueCreateNumber(1), b = CAValueCreateNumber(1), yes = CAValueCreateBool(true);
    CAValueRef c = CAValueCreateNumber(2);
    CHECK(CAValueEqual(a, b) && CAValueEqual(a, yes) && !CAValueEqual(a, c));
    CAValueRef s1 = CAValueCreateString("abc"), s2 = CAValueCreateString("abc");
    CHECK(CAValueEqual(s1, s2) && !CAValueEqual(s1, a));
    CAValueRef i1[] = { a, s1 }, i2[] = { b, s2 }, i3[] = { s1, a };
    CAValueRef arr1 = CAValueCreateArray(i1, 2), arr2 = CAValueCreateArray(i2, 2), arr3 = CAValueCreateArray(i3, 2);
    CHECK(CAValueEqual(arr1, arr2) && !CAValueEqual(arr1, arr3));
    const char *k1[] = { "x", "y" }, *k2[] = { "y", "x" };
    CAValueRef v1[] = { a, s1 }, v2[] = { s2, b };
    CAValueRef d1 = CAValueCreateDictionary(k1, v1, 2), d2 = CAValueCreateDictionary(k2, v2, 2);
    CHECK(CAValueEqual(d1, d2));   /* order does not matter */
    CAValueRef t1 = CAValueCreateTransform3D(CATransform3DMakeScale(2, 2, 2));
    CAValueRef t2 = CAValueCreateTransform3D(CATransform3DMakeScale(2, 2, 2));
    CHECK(CAValueEqual(t1, t2) && !CAValueEqual(t1, a));
    CHECK(CAValueEqual(CAValueGetNull(), CAValueGetNull()));
    CGColorRef red1 = CGColorCreateSRGB(1, 0, 0, 1), red2 = CGColorCreateSRGB(1, 0, 0, 1);
    CAValueRef cv1 = CAValueCreateColor(red1), cv2 = CAValueCreateColor(red2);
    CHECK(CAValueEqual(cv1, cv2));
    CHECK_NO_ERROR();
    CHECK(!CAValueEqual(NULL, a)); CHECK_ERROR(QZErrorNullArgument);
    CAValueRef all[] = { a, b, yes, c, s1, s2, arr1, arr2, arr3, d1, d2, t1, t2, cv1, cv2 };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) CARelease(all[i]);
    CGColorRelease(red1); CGColorRelease(red2);
}

static void colors(void) {
    CGColorRef c = CGColorCreateSRGB(0.25, 0.5, 0.75, 0.8);
    CHECK(CGColorGetNumberOfComponents(c) == 4);
    const CGFloat *comp = CGColorGetComponents(c);
    CHECK(comp[0] == 0.25 && comp[1] == 0.5 && comp[2] == 0.75 && comp[3] == 0.8);
    CHECK(CGColorGetAlpha(c) == 0.8);
    CGColorRef clamped = CGColorCreateGenericRGB(2, -1, 0.5, 1);
    CHECK(CGColorGetComponents(clamped)[0] == 1 && CGColorGetComponents(clamped)[1] == 0);
    CGColorRef gray = CGColorCreateGenericGray(0.5, 1);
    CHECK(CGColorGetNumberOfComponents(gray) == 2);
    CGColorRef half = CGColorCreateCopyWithAlpha(c, 0.5);
    CHECK(CGColorGetAlpha(half) == 0.5 && CGColorGetComponents(half)[2] == 0.75);
    CGColorRef same = CGColorCreateSRGB(0.25, 0.5, 0.75, 0.8);
    CHECK(CGColorEqualToColor(c, same) && !CGColorEqualToColor(c, half));
    CGColorRef generic = CGColorCreateGenericRGB(0.25, 0.5, 0.75, 0.8);
    CHECK(!CGColorEqualToColor(c, generic));   /* another colour space */
    CHECK(CGColorEqualToColor(NULL, NULL));
    CHECK_NO_ERROR();
    CHECK(!CGColorEqualToColor(c, NULL)); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CGColorCreateSRGB(NAN, 0, 0, 1) == NULL); CHECK_ERROR(QZErrorNotFinite);

    CAValueRef v = CAValueCreateColor(c);
    CHECK(CAValueGetType(v) == CAValueTypeColor && CAValueGetColor(v) == c);
    CHECK(CGColorRetain(c) == c);
    CGColorRelease(c);
    CGColorRelease(c);                      /* the value still holds it */
    CHECK(CGColorGetAlpha(CAValueGetColor(v)) == 0.8);
    CARelease(v);
    CGColorRelease(clamped); CGColorRelease(gray); CGColorRelease(half);
    CGColorRelease(same); CGColorRelease(generic);
    CGColorRelease(NULL);
    CHECK(CGColorRetain(NULL) == NULL);
    CHECK_NO_ERROR();
}

static void objects_and_ownership(void) {
    CGColorRef c = CGColorCreateSRGB(0, 1, 0, 1);
    CAValueRef wrapped = CAValueCreateWithObject(c);
    CHECK(CAValueGetType(wrapped) == CAValueTypeColor && CAValueGetObject(wrapped) == (void *)c);
    CAValueRef n = CAValueCreateNumber(3);
    CAValueRef same = CAValueCreateWithObject(n);
    CHECK(same == n);
    CARelease(same);
    CHECK(CARetain(n) == (void *)n);
    CARelease(n);
    CHECK(CAValueGetNumber(n) == 3);
    CARelease(n);
    CARelease(wrapped);
    CGColorRelease(c);
    CARelease(NULL);
    CHECK(CARetain(NULL) == NULL);
    CHECK_NO_ERROR();
}

static void null_and_foreign_handles(void) {
    /* A pointer to zeroed memory and to arbitrary bytes: not Quartzite handles. */
    uint64_t *junk = calloc(8, sizeof(uint64_t));
    CAValueRef fake = (CAValueRef)(void *)junk;
    CHECK(CAValueGetNumber(fake) == 0);
    CHECK(strstr(QZGetLastErrorMessage(), "not a Quartzite handle") != NULL);
    CHECK_ERROR(QZErrorWrongType);
    junk[2] = 0x0123456789abcdefULL;
    CHECK(CAValueGetType(fake) == CAValueTypeNull); CHECK_ERROR(QZErrorWrongType);
    CHECK(CARetain(fake) == NULL); CHECK_ERROR(QZErrorWrongType);
    CARelease(fake); CHECK_ERROR(QZErrorWrongType);
    free(junk);

    /* A colour where a value is expected and the reverse. */
    CGColorRef c = CGColorCreateSRGB(1, 1, 1, 1);
    CAValueRef n = CAValueCreateNumber(1);
    CHECK(CAValueGetNumber((CAValueRef)(void *)c) == 0);
    CHECK(strstr(QZGetLastErrorMessage(), "expected a CAValueRef, got a CGColorRef") != NULL);
    CHECK_ERROR(QZErrorWrongType);
    CHECK(CGColorGetAlpha((CGColorRef)(void *)n) == 0); CHECK_ERROR(QZErrorWrongType);
    CHECK(CGColorGetComponents((CGColorRef)(void *)n) == NULL); CHECK_ERROR(QZErrorWrongType);
    CHECK(CAValueCreateColor((CGColorRef)(void *)n) == NULL); CHECK_ERROR(QZErrorWrongType);
    CHECK(CGColorRetain((CGColorRef)(void *)n) == NULL); CHECK_ERROR(QZErrorWrongType);
    CGColorRelease((CGColorRef)(void *)n); CHECK_ERROR(QZErrorWrongType);

    /* NULL everywhere. */
    CHECK(CAValueGetType(NULL) == CAValueTypeNull); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAValueGetNumber(NULL) == 0); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAValueGetBool(NULL) == false); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAValueGetString(NULL) == NULL); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAValueGetCount(NULL) == 0); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAValueGetArrayItem(NULL, 0) == NULL); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAValueGetDictionaryItem(NULL, "a") == NULL); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAValueGetObject(NULL) == NULL); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAValueCreateString(NULL) == NULL); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAValueCreateColor(NULL) == NULL); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CAValueCreateWithObject(NULL) == NULL); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CGColorGetAlpha(NULL) == 0); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CGColorGetNumberOfComponents(NULL) == 0); CHECK_ERROR(QZErrorNullArgument);
    CHECK(CGColorCreateCopyWithAlpha(NULL, 1) == NULL); CHECK_ERROR(QZErrorNullArgument);
    CAValueRef okPoint = CAValueCreatePoint(CGPointMake(1, 1));
    CHECK(okPoint != NULL);
    CARelease(okPoint);
    CHECK_NO_ERROR();
    CHECK(CAValueCreatePoint((CGPoint){ NAN, 0 }) == NULL); CHECK_ERROR(QZErrorNotFinite);
    CHECK(CAValueCreateSize((CGSize){ 0, NAN }) == NULL); CHECK_ERROR(QZErrorNotFinite);
    CHECK(CAValueCreateRect((CGRect){ { NAN, 0 }, { 1, 1 } }) == NULL); CHECK_ERROR(QZErrorNotFinite);
    CATransform3D badT = CATransform3DIdentity; badT.m44 = INFINITY;
    CHECK(CAValueCreateTransform3D(badT) == NULL); CHECK_ERROR(QZErrorNotFinite);
    CGAffineTransform badA = { NAN, 0, 0, 1, 0, 0 };
    CHECK(CAValueCreateAffineTransform(badA) == NULL); CHECK_ERROR(QZErrorNotFinite);
    CARelease(n);
    CGColorRelease(c);
}

int main(void) {
    RUN(scalar_values);
    RUN(wrong_value_types);
    RUN(collections);
    RUN(collection_errors);
    RUN(equality);
    RUN(colors);
    RUN(objects_and_ownership);
    RUN(null_and_foreign_handles);
    return qz_summary();
}
