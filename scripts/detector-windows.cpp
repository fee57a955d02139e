// ArUco detection settings compared on a scan's frames (scripts/detector-windows.sh builds and runs
// it; docs/performance.md, "Marker detection"). For each CONFIG, OpenCV 4.6's detectMarkers with
// sub-pixel corners: processor ms a frame (this thread, fastest of REPS runs), detections, how
// many of the first CONFIG's (frame, id) detections it keeps and how far their corners moved; with
// TRUTH=file ("frame id x0 y0 … x3 y3" of every visible marker, projected by the simulator's truth),
// the visible markers found and the corners' error against the truth.
// CONFIG: wmin:wmax:wstep[:aruco3:minSideLengthCanonicalImg:minMarkerLengthRatioOriginalImg[:refine[:scale]]]
// (scale < 1: detected in the image resized by it, corners refined at full size).
#include <opencv2/aruco.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/core/utility.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <map>
#include <time.h>
#include <algorithm>
#include <cmath>

static double cpu_ms() { timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }

static std::string slurp(const std::string &p) { std::ifstream f(p, std::ios::binary); std::stringstream s; s << f.rdbuf(); return s.str(); }
static int jint(const std::string &j, size_t from, const char *key) { size_t k = j.find(std::string("\"") + key + "\"", from); k = j.find(':', k); return atoi(j.c_str() + k + 1); }

// Loads grey frames: an .rgbdscan (every `step`-th frame, at most `maxn`) or a TUM folder.
static std::vector<cv::Mat> load(const std::string &path, int step, int maxn, std::string &dict) {
  std::vector<cv::Mat> out;
  if (path.size() > 9 && path.substr(path.size() - 9) == ".rgbdscan") {
    FILE *f = fopen(path.c_str(), "rb");
    char magic[8]; uint32_t ver, hl; fread(magic, 1, 8, f); fread(&ver, 4, 1, f); fread(&hl, 4, 1, f);
    std::string h(hl, 0); fread(&h[0], 1, hl, f);
    size_t d = h.find("\"depth\""), c = h.find("\"color\"");
    int dw = jint(h, d, "width"), dh = jint(h, d, "height"), cw = jint(h, c, "width"), ch = jint(h, c, "height");
    size_t e = h.find("\"encoding\"", d); bool f16 = h.find("16", e) < h.find(',', e) || h.find("16", e) < h.find('}', e);
    size_t di = h.find("\"dictionary\""); size_t q1 = h.find('"', h.find(':', di)); dict = h.substr(q1 + 1, h.find('"', q1 + 1) - q1 - 1);
    size_t fs = 8 + (size_t)dw * dh * (f16 ? 2 : 4) + (size_t)cw * ch * 4;
    long start = 16 + hl;
    fseek(f, 0, SEEK_END); long total = ftell(f); long n = (total - start) / fs;
    std::vector<uint8_t> buf(cw * ch * 4);
    for (long i = 0; i < n && (int)out.size() < maxn; i += step) {
      fseek(f, start + i * fs + (fs - buf.size()), SEEK_SET); fread(buf.data(), 1, buf.size(), f);
      cv::Mat bgra(ch, cw, CV_8UC4, buf.data()), g; cv::cvtColor(bgra, g, cv::COLOR_BGRA2GRAY); out.push_back(g);
    }
    fclose(f);
  } else {
    std::string cam = slurp(path + "/camera.json"); size_t di = cam.find("\"dictionary\""); size_t q1 = cam.find('"', cam.find(':', di)); dict = cam.substr(q1 + 1, cam.find('"', q1 + 1) - q1 - 1);
    std::ifstream l(path + "/rgb.txt"); std::string line; int i = 0;
    while (std::getline(l, line) && (int)out.size() < maxn) {
      if (line.empty() || line[0] == '#') continue;
      if (i++ % step) continue;
      std::string ts, fn; std::istringstream s(line); s >> ts >> fn;
      out.push_back(cv::imread(path + "/" + fn, cv::IMREAD_GRAYSCALE));
    }
  }
  return out;
}

static const std::map<std::string, int> kDicts = {{"DICT_4X4_50", cv::aruco::DICT_4X4_50}, {"DICT_ARUCO_ORIGINAL", cv::aruco::DICT_ARUCO_ORIGINAL}, {"DICT_5X5_50", cv::aruco::DICT_5X5_50}};

struct Det { std::vector<int> ids; std::vector<std::vector<cv::Point2f>> corners; };

// config: "wmin,wmax,wstep[,a3,minSideCanon,minLenRatio][,refine]"
int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: arbench SCAN step maxframes CONFIG... (CONFIG wmin:wmax:wstep[:a3:side:ratio]) ; first config is the reference\n"); return 2; }
  cv::setNumThreads(0);
  std::string dict; auto frames = load(argv[1], atoi(argv[2]), atoi(argv[3]), dict);
  auto dictionary = cv::aruco::getPredefinedDictionary((cv::aruco::PREDEFINED_DICTIONARY_NAME)kDicts.at(dict));
  int reps = getenv("REPS") ? atoi(getenv("REPS")) : 3;
  std::vector<Det> ref;
  for (int a = 4; a < argc; ++a) {
    auto p = cv::aruco::DetectorParameters::create();
    p->cornerRefinementMethod = cv::aruco::CORNER_REFINE_SUBPIX;
    int wmin, wmax, wstep, a3 = 0; float side = 32, ratio = 0; int refine = 1; float scale = 1;
    sscanf(argv[a], "%d:%d:%d:%d:%f:%f:%d:%f", &wmin, &wmax, &wstep, &a3, &side, &ratio, &refine, &scale);
    p->adaptiveThreshWinSizeMin = wmin; p->adaptiveThreshWinSizeMax = wmax; p->adaptiveThreshWinSizeStep = wstep;
    p->useAruco3Detection = a3; p->minSideLengthCanonicalImg = (int)side; p->minMarkerLengthRatioOriginalImg = ratio;
    if (!refine) p->cornerRefinementMethod = cv::aruco::CORNER_REFINE_NONE;
    std::vector<Det> dets(frames.size());
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) {
      double t0 = cpu_ms();
      for (size_t i = 0; i < frames.size(); ++i) {
        std::vector<std::vector<cv::Point2f>> rej; dets[i] = Det();
        if (scale == 1) cv::aruco::detectMarkers(frames[i], dictionary, dets[i].corners, dets[i].ids, p, rej);
        else {
          cv::Mat small; cv::resize(frames[i], small, cv::Size(), scale, scale, cv::INTER_AREA);
          auto q = cv::makePtr<cv::aruco::DetectorParameters>(*p); q->cornerRefinementMethod = cv::aruco::CORNER_REFINE_NONE;
          q->minMarkerPerimeterRate = p->minMarkerPerimeterRate; 
          cv::aruco::detectMarkers(small, dictionary, dets[i].corners, dets[i].ids, q, rej);
          for (auto &m : dets[i].corners) { for (auto &c : m) c = (c + cv::Point2f(0.5f, 0.5f)) / scale - cv::Point2f(0.5f, 0.5f);
            if (refine) cv::cornerSubPix(frames[i], m, cv::Size(5, 5), cv::Size(-1, -1), cv::TermCriteria(cv::TermCriteria::MAX_ITER | cv::TermCriteria::EPS, 30, 0.1)); }
        }
      }
      times.push_back((cpu_ms() - t0) / frames.size());
    }
    std::sort(times.begin(), times.end());
    long total = 0, kept = 0, extra = 0; double sq = 0; long nc = 0; double maxd = 0; long big = 0;
    for (size_t i = 0; i < frames.size(); ++i) total += dets[i].ids.size();
    if (ref.empty()) ref = dets;
    long reftotal = 0;
    for (size_t i = 0; i < frames.size(); ++i) {
      reftotal += ref[i].ids.size();
      for (size_t k = 0; k < ref[i].ids.size(); ++k) {
        bool got = false;
        for (size_t m = 0; m < dets[i].ids.size(); ++m) if (dets[i].ids[m] == ref[i].ids[k]) {
          got = true; for (int c = 0; c < 4; ++c) { double d = cv::norm(dets[i].corners[m][c] - ref[i].corners[k][c]); sq += d * d; nc++; maxd = std::max(maxd, d); if (d > 0.5) big++; } break; }
        kept += got;
        if (!got && getenv("DIFF")) printf("  missed frame %zu id %d at %.1f,%.1f\n", i, ref[i].ids[k], ref[i].corners[k][0].x, ref[i].corners[k][0].y);
      }
      if (getenv("DIFF")) for (size_t m = 0; m < dets[i].ids.size(); ++m) { bool inref = false; for (int id : ref[i].ids) inref |= id == dets[i].ids[m]; if (!inref) printf("  extra frame %zu id %d at %.1f,%.1f side %.1f\n", i, dets[i].ids[m], dets[i].corners[m][0].x, dets[i].corners[m][0].y, cv::norm(dets[i].corners[m][0]-dets[i].corners[m][1])); }
    }
    extra = total - kept;
    printf("%-22s frames %zu  cpu ms/frame min %.3f med %.3f  detections %ld  kept %ld/%ld (%.2f%%)  extra %ld  corner rms vs ref %.3f max %.2f >0.5px %ld\n", argv[a], frames.size(), times[0], times[times.size()/2], total, kept, reftotal, 100.0 * kept / std::max(1L, reftotal), extra, nc ? std::sqrt(sq / nc) : 0, maxd, big);
    if (getenv("DUMP")) {
      std::string fn = std::string(getenv("DUMP")) + "." + std::to_string(a) + ".txt"; FILE *o = fopen(fn.c_str(), "w");
      for (size_t i = 0; i < frames.size(); ++i) for (size_t k = 0; k < dets[i].ids.size(); ++k) { fprintf(o, "%zu %d", i, dets[i].ids[k]); for (int c = 0; c < 4; ++c) fprintf(o, " %.4f %.4f", dets[i].corners[k][c].x, dets[i].corners[k][c].y); fprintf(o, "\n"); }
      fclose(o);
    }
    if (getenv("TRUTH")) {
      // frame id 8 coords; frames of the scan were loaded every `step`, so frame f is index f/step.
      int step = atoi(argv[2]); FILE *t = fopen(getenv("TRUTH"), "r"); int f, id; float c[8];
      long visible = 0, found = 0, fp = 0; std::vector<double> err; std::map<int, std::pair<int,int>> perId;
      std::vector<std::vector<std::pair<int, std::vector<cv::Point2f>>>> tr(frames.size());
      while (fscanf(t, "%d %d %f %f %f %f %f %f %f %f", &f, &id, c, c+1, c+2, c+3, c+4, c+5, c+6, c+7) == 10) {
        if (f % step || f / step >= (int)frames.size()) continue;
        std::vector<cv::Point2f> q; for (int k = 0; k < 4; ++k) q.emplace_back(c[2*k], c[2*k+1]);
        tr[f / step].push_back({id, q});
      }
      fclose(t);
      for (size_t i = 0; i < frames.size(); ++i) {
        for (auto &v : tr[i]) { visible++; perId[v.first].first++; for (size_t m = 0; m < dets[i].ids.size(); ++m) if (dets[i].ids[m] == v.first) { found++; perId[v.first].second++; for (int k = 0; k < 4; ++k) err.push_back(cv::norm(dets[i].corners[m][k] - v.second[k])); break; } }
        for (size_t m = 0; m < dets[i].ids.size(); ++m) { bool ok = false; for (auto &v : tr[i]) ok |= v.first == dets[i].ids[m]; fp += !ok; }
      }
      std::sort(err.begin(), err.end()); double sq = 0; for (double e : err) sq += e * e;
      int ids = 0; for (auto &p : perId) ids += p.second.second > 0;
      printf("    truth: visible %ld found %ld (%.2f%%) ids found %d/%zu  not-visible dets %ld  corner err median %.3f p90 %.3f rms %.3f  >1px %ld\n", visible, found, 100.0*found/visible, ids, perId.size(), fp, err[err.size()/2], err[err.size()*9/10], std::sqrt(sq/err.size()), (long)(err.end() - std::upper_bound(err.begin(), err.end(), 1.0)));
    }
    fflush(stdout);
  }
}
