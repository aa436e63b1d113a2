/* video_writer: BGRA frames -> H.264 in an MP4, through FFmpeg's libraries.
 * See video_writer.h. */
#include "video_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

struct VideoWriter {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    AVFrame *frame;
    AVPacket *packet;
    struct SwsContext *convert;
    int64_t next_pts;
    int failed;
};

static void describe(char *error, size_t size, const char *what, int code) {
    char reason[AV_ERROR_MAX_STRING_SIZE] = "";
    if (code < 0) av_strerror(code, reason, sizeof reason);
    if (error && size) snprintf(error, size, "%s%s%s", what, code < 0 ? ": " : "", reason);
}

/* Sends `frame` (NULL: end of stream) and writes every packet the encoder has. */
static int encode(VideoWriter *w, AVFrame *frame) {
    int status = avcodec_send_frame(w->codec, frame);
    while (status >= 0) {
        status = avcodec_receive_packet(w->codec, w->packet);
        if (status == AVERROR(EAGAIN) || status == AVERROR_EOF) return 0;
        if (status < 0) break;
        av_packet_rescale_ts(w->packet, w->codec->time_base, w->stream->time_base);
        w->packet->stream_index = w->stream->index;
        status = av_interleaved_write_frame(w->format, w->packet);   /* takes the packet's data */
    }
    return status < 0 ? -1 : 0;
}

VideoWriter *video_writer_open(const char *path, int width, int height, int fps, char *error, size_t error_size) {
    if (!path || width <= 0 || height <= 0 || (width | height) & 1 || fps <= 0) {
        describe(error, error_size, "video_writer_open: a path, even positive sizes and a positive rate", 0);
        return NULL;
    }
    VideoWriter *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    av_log_set_level(AV_LOG_ERROR);   /* the encoder's statistics are not ours to print */
    int status = avformat_alloc_output_context2(&w->format, NULL, NULL, path);
    if (status < 0 || !w->format) {
        describe(error, error_size, "no container for this file name", status);
        goto fail;
    }
    const AVCodec *h264 = avcodec_find_encoder_by_name("libx264");
    if (!h264) h264 = avcodec_find_encoder(AV_CODEC_ID_H264);
    if (!h264) {
        describe(error, error_size, "this FFmpeg has no H.264 encoder", 0);
        goto fail;
    }
    w->stream = avformat_new_stream(w->format, NULL);
    w->codec = avcodec_alloc_context3(h264);
    w->frame = av_frame_alloc();
    w->packet = av_packet_alloc();
    if (!w->stream || !w->codec || !w->frame || !w->packet) {
        describe(error, error_size, "out of memory", 0);
        goto fail;
    }
    w->codec->width = width;
    w->codec->height = height;
    w->codec->time_base = (AVRational){1, fps};
    w->codec->framerate = (AVRational){fps, 1};
    w->codec->gop_size = fps;                       /* a key frame every second: seekable */
    w->codec->pix_fmt = AV_PIX_FMT_YUV420P;
    w->codec->color_range = AVCOL_RANGE_MPEG;
    w->codec->colorspace = AVCOL_SPC_SMPTE170M;     /* what swscale's default BT.601 matrix gives */
    w->codec->color_primaries = AVCOL_PRI_BT709;    /* sRGB primaries */
    w->codec->color_trc = AVCOL_TRC_IEC61966_2_1;   /* sRGB transfer */
    if (w->format->oformat->flags & AVFMT_GLOBALHEADER) w->codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (strcmp(h264->name, "libx264") == 0) {
        av_opt_set(w->codec->priv_data, "preset", "medium", 0);
        av_opt_set(w->codec->priv_data, "crf", "20", 0);
    }
    if ((status = avcodec_open2(w->codec, h264, NULL)) < 0) {
        describe(error, error_size, "cannot open the H.264 encoder", status);
        goto fail;
    }
    if ((status = avcodec_parameters_from_context(w->stream->codecpar, w->codec)) < 0) {
        describe(error, error_size, "cannot describe the stream", status);
        goto fail;
    }
    w->stream->time_base = w->codec->time_base;
    w->stream->avg_frame_rate = w->codec->framerate;
    if (!(w->format->oformat->flags & AVFMT_NOFILE) && (status = avio_open(&w->format->pb, path, AVIO_FLAG_WRITE)) < 0) {
        describe(error, error_size, "cannot create the file", status);
        goto fail;
    }
    if ((status = avformat_write_header(w->format, NULL)) < 0) {
        describe(error, error_size, "cannot write the header", status);
        goto fail;
    }
    w->frame->format = AV_PIX_FMT_YUV420P;
    w->frame->width = width;
    w->frame->height = height;
    if ((status = av_frame_get_buffer(w->frame, 0)) < 0) {
        describe(error, error_size, "out of memory", status);
        goto fail;
    }
    w->convert = sws_getContext(width, height, AV_PIX_FMT_BGRA, width, height, AV_PIX_FMT_YUV420P, SWS_BICUBIC,
                                NULL, NULL, NULL);
    if (!w->convert) {
        describe(error, error_size, "no BGRA to YUV 4:2:0 conversion", 0);
        goto fail;
    }
    return w;
fail:
    w->failed = 1;
    video_writer_close(w);
    return NULL;
}

int video_writer_add_frame(VideoWriter *w, const uint8_t *bgra, size_t bytes_per_row) {
    if (!w || !bgra || w->failed) return -1;
    if (av_frame_make_writable(w->frame) < 0) return w->failed = 1, -1;
    const uint8_t *planes[1] = { bgra };
    const int strides[1] = { (int)bytes_per_row };
    sws_scale(w->convert, planes, strides, 0, w->codec->height, w->frame->data, w->frame->linesize);
    w->frame->pts = w->next_pts++;
    if (encode(w, w->frame) < 0) return w->failed = 1, -1;
    return 0;
}

int video_writer_close(VideoWriter *w) {
    if (!w) return -1;
    int failed = w->failed;
    if (!failed && w->codec && encode(w, NULL) < 0) failed = 1;           /* the delayed frames */
    if (!failed && av_write_trailer(w->format) < 0) failed = 1;
    if (w->format && !(w->format->oformat->flags & AVFMT_NOFILE)) avio_closep(&w->format->pb);
    avformat_free_context(w->format);
    avcodec_free_context(&w->codec);
    av_frame_free(&w->frame);
    av_packet_free(&w->packet);
    sws_freeContext(w->convert);
    free(w);
    return failed ? -1 : 0;
}
