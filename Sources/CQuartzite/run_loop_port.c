/* The run loop's wait port: an epoll set holding an eventfd (wake-ups from
 * any thread) and a timerfd (the loop's next deadline on CLOCK_MONOTONIC).
 * The epoll descriptor is what QZRunLoopGetFileDescriptor hands out: it is
 * readable while either member is, and a host can poll it like any other. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "quartzite_internal.h"

int qz_internal_wait_port_open(qz_wait_port *port) {
    port->epoll_fd = port->event_fd = port->timer_fd = -1;
    port->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    port->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    port->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (port->epoll_fd < 0 || port->event_fd < 0 || port->timer_fd < 0) goto fail;
    struct epoll_event ev = { .events = EPOLLIN };
    ev.data.fd = port->event_fd;
    if (epoll_ctl(port->epoll_fd, EPOLL_CTL_ADD, port->event_fd, &ev) != 0) goto fail;
    ev.data.fd = port->timer_fd;
    if (epoll_ctl(port->epoll_fd, EPOLL_CTL_ADD, port->timer_fd, &ev) != 0) goto fail;
    return 0;
fail:
    qz_internal_wait_port_close(port);
    return -1;
}

void qz_internal_wait_port_close(qz_wait_port *port) {
    if (port->epoll_fd >= 0) close(port->epoll_fd);
    if (port->event_fd >= 0) close(port->event_fd);
    if (port->timer_fd >= 0) close(port->timer_fd);
    port->epoll_fd = port->event_fd = port->timer_fd = -1;
}

void qz_internal_wait_port_signal(int event_fd) {
    uint64_t one = 1;
    /* EAGAIN (the counter is full) still leaves it readable. */
    ssize_t n = write(event_fd, &one, sizeof one);
    (void)n;
}

void qz_internal_wait_port_drain(const qz_wait_port *port) {
    uint64_t value;
    ssize_t n = read(port->event_fd, &value, sizeof value);
    n = read(port->timer_fd, &value, sizeof value);
    (void)n;
}

void qz_internal_wait_port_arm(const qz_wait_port *port, double monotonic_deadline) {
    struct itimerspec spec = {0};
    if (isfinite(monotonic_deadline)) {
        /* it_value 0 would disarm: the earliest deadline is 1 ns. */
        double d = monotonic_deadline > 1e-9 ? monotonic_deadline : 1e-9;
        if (d > 1e15) d = 1e15;
        double whole = floor(d);
        spec.it_value.tv_sec = (time_t)whole;
        spec.it_value.tv_nsec = (long)((d - whole) * 1e9);
        if (spec.it_value.tv_nsec >= 1000000000L) spec.it_value.tv_nsec = 999999999L;
        if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
    }
    timerfd_settime(port->timer_fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

int qz_internal_wait_port_wait(const qz_wait_port *port, double timeout_seconds) {
    struct pollfd pfd = { .fd = port->epoll_fd, .events = POLLIN };
    struct timespec ts, *tp = NULL;
    if (!(timeout_seconds >= 0)) timeout_seconds = 0;   /* NaN or negative: do not block */
    if (isfinite(timeout_seconds) && timeout_seconds < 1e9) {
        double whole = floor(timeout_seconds);
        ts.tv_sec = (time_t)whole;
        ts.tv_nsec = (long)((timeout_seconds - whole) * 1e9);
        if (ts.tv_nsec >= 1000000000L) ts.tv_nsec = 999999999L;
        tp = &ts;
    }
    int r = ppoll(&pfd, 1, tp, NULL);
    if (r < 0) return errno == EINTR ? 0 : -1;
    return r > 0 ? 1 : 0;
}

int qz_internal_wait_port_is_readable(const qz_wait_port *port) {
    struct pollfd pfd = { .fd = port->epoll_fd, .events = POLLIN };
    return poll(&pfd, 1, 0) > 0 ? 1 : 0;
}

int32_t qz_internal_thread_id(void) {
    return (int32_t)syscall(SYS_gettid);
}

int32_t qz_internal_process_id(void) {
    return (int32_t)getpid();
}
