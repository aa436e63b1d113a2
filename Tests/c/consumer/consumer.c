/* Built against an installed Quartzite by install_consumer.sh. */
#include <stdio.h>
#include <quartzite/quartzite.h>

int main(void) {
    CATransform3D t = CATransform3DMakeTranslation(10, 20, 30);
    CATransform3D i = CATransform3DInvert(t);
    CAValueRef v = CAValueCreateTransform3D(i);
    int ok = CAValueGetTransform3D(v).m41 == -10 && QZGetLastError() == QZErrorNone;
    CARelease(v);
    printf("consumer: %s\n", ok ? "ok" : "wrong result");
    return ok ? 0 : 1;
}
