// The exchange side of a FIX 4.4 drop-copy session, for the end-to-end tests: QuickFIX/C++ (Debian's
// libquickfix-dev), an implementation independent of the engine's, so the tests check the engine against a
// FIX engine that venues actually run rather than against our own reading of the protocol.
//
// usage: exchange CONFIG
// CONFIG is a QuickFIX settings file with one [SESSION]; its ConnectionType (initiator or acceptor) chooses
// the role. With PersistMessages=Y and ResetOnLogon=N the file store under FileStorePath keeps sequence
// numbers and sent messages across restarts, so a restarted exchange resumes and resends like a venue does.
// Set `SSL=Y` in the settings file for TLS (QuickFIX's own SSL settings: ServerCertificateFile, ...).
//
// Controlled by lines on stdin, one command each; reports events as lines on stdout (flushed at once):
//   fill EXECID ACCOUNT [TAG=VALUE ...]  one fill (35=8, 150=F) with every field a fill carries; TAG=VALUE
//                                        overrides a field, TAG= removes it     -> sent SEQ EXECID
//   again EXECID                         the last fill of EXECID again, as a new message (new MsgSeqNum,
//                                        no PossDupFlag): a duplicate fill      -> sent SEQ EXECID
//   bulk N PREFIX ACCOUNT START          N fills, ExecIDs PREFIX<START> ...     -> bulk N FIRSTSEQ LASTSEQ
//   pace N RATE PREFIX ACCOUNT START     the same N fills, one every 1/RATE s on a steady clock (a paced stream,
//                                        not a burst; no other command is read until the last is sent; a send
//                                        due while the previous one was still being made goes at once)
//                                                                               -> paced N FIRSTSEQ LASTSEQ LATE_MAX_US
//   msg MSGTYPE [TAG=VALUE ...]          any other application message         -> sent SEQ -
//   skip K                               skip K outbound seqnums (a gap)        -> skipped NEXTSEQ
//   logout | logon                       end / resume the session (logon: initiators reconnect)
//   seqnums                              -> seqnums NEXTSENDER NEXTTARGET
//   quit                                 stop and exit 0
// Events: ready, logon, logout, sent SEQ EXECID (resent SEQ EXECID when replayed for a ResendRequest),
// reject REFSEQNUM 373 371 58 (a 35=3 received), bmr REFSEQNUM 380 58 (a 35=j received),
// resend-request FROM TO (a 35=2 received), error TEXT. Empty fields are printed as `-`; 58 is last and may
// contain spaces.
//
// When each message was sent: the message log (FileLog, FileLogPath) writes every outgoing message as a line
// `YYYYMMDD-HH:MM:SS.nnnnnnnnn : MESSAGE`, stamped (UTC, nanoseconds) by QuickFIX just before it hands the
// message to the socket, after stamping its SendingTime (52, milliseconds) and storing it (test/helpers/quickfix/
// peer.ts reads it: `sentMessages`). LATE_MAX_US of `pace` is the most a send began after its due instant.
//
// Built with -std=c++14: Debian's 1.15.1 headers use dynamic exception specifications, which C++17 removed,
// and the overrides below must repeat them.
#include <quickfix/Application.h>
#include <quickfix/FileLog.h>
#include <quickfix/FileStore.h>
#include <quickfix/Session.h>
#include <quickfix/SessionSettings.h>
#include <quickfix/SocketAcceptor.h>
#include <quickfix/SocketInitiator.h>
#include <quickfix/fix44/ExecutionReport.h>
#ifdef HAVE_SSL
#include <quickfix/SSLSocketAcceptor.h>
#include <quickfix/SSLSocketInitiator.h>
#endif
#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

std::mutex outMutex;

// QuickFIX calls back on its own thread while the main thread reads commands: one line at a time.
void emit(const std::string& line) {
  std::lock_guard<std::mutex> lock(outMutex);
  std::cout << line << std::endl;
}

std::string field(const FIX::FieldMap& m, int tag) {
  return m.isSetField(tag) ? m.getField(tag) : std::string("-");
}

class Exchange : public FIX::Application {
public:
  FIX::SessionID sid;
  bool quietSends = false;  // bulk: one summary line, not one per message

  void onCreate(const FIX::SessionID& s) override { sid = s; }
  void onLogon(const FIX::SessionID&) override { emit("logon"); }
  void onLogout(const FIX::SessionID&) override { emit("logout"); }
  void toAdmin(FIX::Message&, const FIX::SessionID&) override {}
  void toApp(FIX::Message& m, const FIX::SessionID&) throw(FIX::DoNotSend) override {
    const FIX::Header& h = m.getHeader();
    const bool resent = h.isSetField(FIX::FIELD::PossDupFlag) && h.getField(FIX::FIELD::PossDupFlag) == "Y";
    if (quietSends && !resent) return;
    emit(std::string(resent ? "resent " : "sent ") + field(h, FIX::FIELD::MsgSeqNum) + " " + field(m, FIX::FIELD::ExecID));
  }
  void fromAdmin(const FIX::Message& m, const FIX::SessionID&)
    throw(FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue, FIX::RejectLogon) override {
    const std::string type = m.getHeader().getField(FIX::FIELD::MsgType);
    if (type == "3") {
      emit("reject " + field(m, FIX::FIELD::RefSeqNum) + " " + field(m, FIX::FIELD::SessionRejectReason) + " " +
           field(m, FIX::FIELD::RefTagID) + " " + field(m, FIX::FIELD::Text));
    } else if (type == "2") {
      emit("resend-request " + field(m, FIX::FIELD::BeginSeqNo) + " " + field(m, FIX::FIELD::EndSeqNo));
    }
  }
  void fromApp(const FIX::Message& m, const FIX::SessionID&)
    throw(FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue, FIX::UnsupportedMessageType) override {
    const std::string type = m.getHeader().getField(FIX::FIELD::MsgType);
    if (type == "j") {
      emit("bmr " + field(m, FIX::FIELD::RefSeqNum) + " " + field(m, FIX::FIELD::BusinessRejectReason) + " " +
           field(m, FIX::FIELD::Text));
    } else {
      emit("app " + type);
    }
  }
};

using Fields = std::vector<std::pair<int, std::string>>;

// TAG=VALUE words; an empty VALUE removes the field.
bool parseFields(std::istringstream& in, Fields& out) {
  std::string word;
  while (in >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    out.emplace_back(std::stoi(word.substr(0, eq)), word.substr(eq + 1));
  }
  return true;
}

void apply(FIX::Message& m, const Fields& fields) {
  for (const auto& f : fields) {
    if (f.second.empty()) m.removeField(f.first);
    else m.setField(f.first, f.second);
  }
}

FIX44::ExecutionReport fill(const std::string& execId, const std::string& account, const Fields& overrides) {
  FIX44::ExecutionReport er(FIX::OrderID("O-" + execId), FIX::ExecID(execId), FIX::ExecType(FIX::ExecType_TRADE),
                            FIX::OrdStatus(FIX::OrdStatus_FILLED), FIX::Side(FIX::Side_BUY), FIX::LeavesQty(0),
                            FIX::CumQty(100), FIX::AvgPx(190));
  er.set(FIX::Account(account));
  er.set(FIX::Symbol("AAPL"));
  er.set(FIX::LastQty(100));
  er.set(FIX::LastPx(190));
  er.set(FIX::Currency("USD"));
  er.set(FIX::TransactTime(FIX::UtcTimeStamp(), 3));
  apply(er, overrides);
  return er;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: exchange CONFIG" << std::endl;
    return 2;
  }
  try {
    FIX::SessionSettings settings(argv[1]);
    const FIX::Dictionary& defaults = settings.get();
    const bool acceptor = defaults.getString("ConnectionType") == "acceptor";
    const bool ssl = defaults.has("SSL") && defaults.getBool("SSL");
    Exchange app;
    FIX::FileStoreFactory store(settings);
    FIX::FileLogFactory log(settings);
    std::unique_ptr<FIX::Initiator> initiator;
    std::unique_ptr<FIX::Acceptor> acceptorEngine;
    if (ssl) {
#ifdef HAVE_SSL
      if (acceptor) acceptorEngine.reset(new FIX::SSLSocketAcceptor(app, store, settings, log));
      else initiator.reset(new FIX::SSLSocketInitiator(app, store, settings, log));
#else
      std::cerr << "SSL=Y but this build has no SSL support" << std::endl;
      return 2;
#endif
    } else if (acceptor) {
      acceptorEngine.reset(new FIX::SocketAcceptor(app, store, settings, log));
    } else {
      initiator.reset(new FIX::SocketInitiator(app, store, settings, log));
    }
    if (acceptorEngine) acceptorEngine->start();
    else initiator->start();
    emit("ready");

    std::map<std::string, std::pair<std::string, Fields>> fills;  // ExecID -> the last fill sent with it
    std::string line;
    while (std::getline(std::cin, line)) {
      std::istringstream in(line);
      std::string cmd;
      if (!(in >> cmd)) continue;
      FIX::Session* session = FIX::Session::lookupSession(app.sid);
      try {
        if (cmd == "quit") break;
        if (!session) throw std::runtime_error("no session");
        if (cmd == "fill") {
          std::string execId, account;
          Fields overrides;
          if (!(in >> execId >> account) || !parseFields(in, overrides)) throw std::runtime_error("usage: fill EXECID ACCOUNT [TAG=VALUE ...]");
          fills[execId] = {account, overrides};
          FIX44::ExecutionReport er = fill(execId, account, overrides);
          if (!FIX::Session::sendToTarget(er, app.sid)) throw std::runtime_error("not sent: " + execId);
        } else if (cmd == "again") {
          std::string execId;
          in >> execId;
          const auto it = fills.find(execId);
          if (it == fills.end()) throw std::runtime_error("no fill " + execId);
          FIX44::ExecutionReport er = fill(execId, it->second.first, it->second.second);
          if (!FIX::Session::sendToTarget(er, app.sid)) throw std::runtime_error("not sent: " + execId);
        } else if (cmd == "bulk") {
          int n = 0, start = 0;
          std::string prefix, account;
          if (!(in >> n >> prefix >> account >> start) || n <= 0) throw std::runtime_error("usage: bulk N PREFIX ACCOUNT START");
          const int first = session->getExpectedSenderNum();
          app.quietSends = true;
          for (int i = 0; i < n; ++i) {
            FIX44::ExecutionReport er = fill(prefix + std::to_string(start + i), account, Fields());
            FIX::Session::sendToTarget(er, app.sid);
          }
          app.quietSends = false;
          emit("bulk " + std::to_string(n) + " " + std::to_string(first) + " " + std::to_string(session->getExpectedSenderNum() - 1));
        } else if (cmd == "pace") {
          int n = 0, start = 0;
          double rate = 0;
          std::string prefix, account;
          if (!(in >> n >> rate >> prefix >> account >> start) || n <= 0 || !(rate > 0)) throw std::runtime_error("usage: pace N RATE PREFIX ACCOUNT START");
          const int first = session->getExpectedSenderNum();
          const auto t0 = std::chrono::steady_clock::now();
          long long lateMax = 0;
          app.quietSends = true;
          for (int i = 0; i < n; ++i) {
            const auto due = t0 + std::chrono::nanoseconds(static_cast<long long>(i * (1e9 / rate)));
            std::this_thread::sleep_until(due);
            const long long late = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - due).count();
            lateMax = std::max(lateMax, late);
            FIX44::ExecutionReport er = fill(prefix + std::to_string(start + i), account, Fields());
            FIX::Session::sendToTarget(er, app.sid);
          }
          app.quietSends = false;
          emit("paced " + std::to_string(n) + " " + std::to_string(first) + " " + std::to_string(session->getExpectedSenderNum() - 1) + " " +
               std::to_string(lateMax));
        } else if (cmd == "msg") {
          std::string type;
          Fields fields;
          if (!(in >> type) || !parseFields(in, fields)) throw std::runtime_error("usage: msg MSGTYPE [TAG=VALUE ...]");
          FIX::Message m;
          m.getHeader().setField(FIX::BeginString("FIX.4.4"));
          m.getHeader().setField(FIX::MsgType(type));
          apply(m, fields);
          if (!FIX::Session::sendToTarget(m, app.sid)) throw std::runtime_error("not sent");
        } else if (cmd == "skip") {
          int k = 0;
          if (!(in >> k) || k <= 0) throw std::runtime_error("usage: skip K");
          session->setNextSenderMsgSeqNum(session->getExpectedSenderNum() + k);
          emit("skipped " + std::to_string(session->getExpectedSenderNum()));
        } else if (cmd == "logout") {
          session->logout("logout requested");
        } else if (cmd == "logon") {
          session->logon();
        } else if (cmd == "seqnums") {
          emit("seqnums " + std::to_string(session->getExpectedSenderNum()) + " " + std::to_string(session->getExpectedTargetNum()));
        } else {
          throw std::runtime_error("unknown command: " + cmd);
        }
      } catch (const std::exception& e) {
        app.quietSends = false;
        emit(std::string("error ") + e.what());
      }
    }
    if (acceptorEngine) acceptorEngine->stop();
    else initiator->stop();
    emit("stopped");
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "exchange: " << e.what() << std::endl;
    return 1;
  }
}
