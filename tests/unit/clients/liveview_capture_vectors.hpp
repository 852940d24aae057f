#pragma once
// Browser transcripts for the LiveView session tests, cut from ../shared/phoenix-captures
// (lv-1.x: Phoenix 1.8.12 / LiveView 1.2.10, lv-0.20: Phoenix 1.7.24 / LiveView 0.20.17, recorded
// with headless Chromium running the apps' own JavaScript). Each flow keeps the page the
// browser loaded, the query of the socket URL it opened, and the text frames of some steps on
// LiveView topics (heartbeats left out), in the order Chromium saw them. Tokens are signed by
// the recorded apps and mean nothing elsewhere; the tests replay them to the client as they were.
#include <string_view>
#include <vector>

namespace stampede::testing::lv_capture {

struct CaptureFrame {
  std::string_view step;
  bool from_browser;       // "out": what the client must send; otherwise what the server sent
  std::string_view data;   // the V2 JSON frame as recorded
};

struct CaptureFlow {
  std::string_view host;   // the recorded app's host:port, to be replaced by the test server's
  std::string_view page;   // the HTML of the page GET
  std::string_view socket_query;  // the query of the LiveView socket URL the browser opened
  std::vector<CaptureFrame> frames;
};

inline const CaptureFlow kCounter1x{
    R"lv(127.0.0.1:4001)lv",
    R"lv(<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="csrf-token" content="IAYLDlcRBTFxLhN8AgIOOR0caAofGmMndSdG0eFRFfUO2o9pjRPmitQS">
    <title data-default="Demo" data-suffix=" · Phoenix Framework">
      Counter
     · Phoenix Framework</title>
    <script defer phx-track-static type="text/javascript" src="/assets/phoenix.min.js">
    </script>
    <script defer phx-track-static type="text/javascript" src="/assets/phoenix_live_view.min.js">
    </script>
    <script defer phx-track-static type="text/javascript" src="/assets/app.js">
    </script>
  </head>
  <body>
    <div id="phx-GOy8bvtSi4loOZKC" data-phx-main data-phx-session="SFMyNTY.g2gDaAJhBnQAAAAIZAACaWRtAAAAFHBoeC1HT3k4YnZ0U2k0bG9PWktDZAARbGl2ZV9zZXNzaW9uX25hbWVkAAdkZWZhdWx0ZAAKcGFyZW50X3BpZGQAA25pbGQACHJvb3RfcGlkZAADbmlsZAAJcm9vdF92aWV3ZAAaRWxpeGlyLkRlbW9XZWIuQ291bnRlckxpdmVkAAZyb3V0ZXJkABVFbGl4aXIuRGVtb1dlYi5Sb3V0ZXJkAAdzZXNzaW9udAAAAABkAAR2aWV3ZAAaRWxpeGlyLkRlbW9XZWIuQ291bnRlckxpdmVuBgAGvfwqogFiAAFRgA.Y7AjMQMxn-tb2Jws_deL9av9E16vZQoihFj6dCTGkYA" data-phx-static="SFMyNTY.g2gDaAJhBnQAAAADZAAKYXNzaWduX25ld2pkAAVmbGFzaHQAAAAAZAACaWRtAAAAFHBoeC1HT3k4YnZ0U2k0bG9PWktDbgYAB738KqIBYgABUYA.Vnkm0dm0iWkw0ZVV_YwbXUrafAwsvfybS0QMEcdz6Tw"><main>
  
  
  <h1>Counter</h1>
<p>Count: <span id="count">0</span></p>
<button id="inc" phx-click="inc">+1 (reply)</button>
<button id="inc-noreply" phx-click="inc_noreply">+1 (no reply)</button>
</main></div>
  </body>
</html>)lv",
    R"lv(_csrf_token=IAYLDlcRBTFxLhN8AgIOOR0caAofGmMndSdG0eFRFfUO2o9pjRPmitQS&_track_static%5B0%5D=http%3A%2F%2F127.0.0.1%3A4001%2Fassets%2Fphoenix.min.js&_track_static%5B1%5D=http%3A%2F%2F127.0.0.1%3A4001%2Fassets%2Fphoenix_live_view.min.js&_track_static%5B2%5D=http%3A%2F%2F127.0.0.1%3A4001%2Fassets%2Fapp.js&_mounts=0&_mount_attempts=0&_live_referer=undefined&vsn=2.0.0)lv",
    {
        {R"lv(load)lv", true, R"lv(["4","4","lv:phx-GOy8bvtSi4loOZKC","phx_join",{"url":"http://127.0.0.1:4001/counter","params":{"_csrf_token":"IAYLDlcRBTFxLhN8AgIOOR0caAofGmMndSdG0eFRFfUO2o9pjRPmitQS","_track_static":["http://127.0.0.1:4001/assets/phoenix.min.js","http://127.0.0.1:4001/assets/phoenix_live_view.min.js","http://127.0.0.1:4001/assets/app.js"],"_mounts":0,"_mount_attempts":0},"session":"SFMyNTY.g2gDaAJhBnQAAAAIZAACaWRtAAAAFHBoeC1HT3k4YnZ0U2k0bG9PWktDZAARbGl2ZV9zZXNzaW9uX25hbWVkAAdkZWZhdWx0ZAAKcGFyZW50X3BpZGQAA25pbGQACHJvb3RfcGlkZAADbmlsZAAJcm9vdF92aWV3ZAAaRWxpeGlyLkRlbW9XZWIuQ291bnRlckxpdmVkAAZyb3V0ZXJkABVFbGl4aXIuRGVtb1dlYi5Sb3V0ZXJkAAdzZXNzaW9udAAAAABkAAR2aWV3ZAAaRWxpeGlyLkRlbW9XZWIuQ291bnRlckxpdmVuBgAGvfwqogFiAAFRgA.Y7AjMQMxn-tb2Jws_deL9av9E16vZQoihFj6dCTGkYA","static":"SFMyNTY.g2gDaAJhBnQAAAADZAAKYXNzaWduX25ld2pkAAVmbGFzaHQAAAAAZAACaWRtAAAAFHBoeC1HT3k4YnZ0U2k0bG9PWktDbgYAB738KqIBYgABUYA.Vnkm0dm0iWkw0ZVV_YwbXUrafAwsvfybS0QMEcdz6Tw","sticky":false}])lv"},
        {R"lv(load)lv", false, R"lv(["4","4","lv:phx-GOy8bvtSi4loOZKC","phx_reply",{"response":{"liveview_version":"1.2.10","rendered":{"0":"","1":"","2":{"0":"0","s":0},"p":{"0":["<h1>Counter</h1>\n<p>Count: <span id=\"count\">","</span></p>\n<button id=\"inc\" phx-click=\"inc\">+1 (reply)</button>\n<button id=\"inc-noreply\" phx-click=\"inc_noreply\">+1 (no reply)</button>"],"1":["<main>\n  ","\n  ","\n  ","\n</main>"]},"r":1,"s":1,"t":"Counter"}},"status":"ok"}])lv"},
        {R"lv(click_inc_1)lv", true, R"lv(["4","12","lv:phx-GOy8bvtSi4loOZKC","event",{"type":"click","event":"inc","value":{"value":""}}])lv"},
        {R"lv(click_inc_1)lv", false, R"lv(["4","12","lv:phx-GOy8bvtSi4loOZKC","phx_reply",{"response":{"diff":{"2":{"0":"1"},"r":{"count":1}}},"status":"ok"}])lv"},
        {R"lv(click_inc_noreply)lv", true, R"lv(["4","14","lv:phx-GOy8bvtSi4loOZKC","event",{"type":"click","event":"inc_noreply","value":{"value":""}}])lv"},
        {R"lv(click_inc_noreply)lv", false, R"lv(["4","14","lv:phx-GOy8bvtSi4loOZKC","phx_reply",{"response":{"diff":{"2":{"0":"3"}}},"status":"ok"}])lv"},
    }};

inline const CaptureFlow kCounter020{
    R"lv(127.0.0.1:4000)lv",
    R"lv(<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="csrf-token" content="aSQIAQpseAIiIzAgGQo2DA5RP1k2YUtR_Py9Y3OkasyERznJm9YmRR3e">
    <title data-suffix=" · Phoenix Framework">
Counter
     · Phoenix Framework</title>
    <script defer phx-track-static type="text/javascript" src="/assets/phoenix.min.js">
    </script>
    <script defer phx-track-static type="text/javascript" src="/assets/phoenix_live_view.min.js">
    </script>
    <script defer phx-track-static type="text/javascript" src="/assets/app.js">
    </script>
  </head>
  <body>
<div id="phx-GOy8axIeKTOc8gZB" data-phx-main data-phx-session="SFMyNTY.g2gDaAJhBXQAAAAIZAACaWRtAAAAFHBoeC1HT3k4YXhJZUtUT2M4Z1pCZAAMbGl2ZV9zZXNzaW9uaAJkAAdkZWZhdWx0bggApBGxoue47BhkAApwYXJlbnRfcGlkZAADbmlsZAAIcm9vdF9waWRkAANuaWxkAAlyb290X3ZpZXdkABpFbGl4aXIuRGVtb1dlYi5Db3VudGVyTGl2ZWQABnJvdXRlcmQAFUVsaXhpci5EZW1vV2ViLlJvdXRlcmQAB3Nlc3Npb250AAAAAGQABHZpZXdkABpFbGl4aXIuRGVtb1dlYi5Db3VudGVyTGl2ZW4GAGl7_CqiAWIAAVGA.moFgkoi0M1RHMDq9TUgjOvNHEmM6igSyH9-8gvfpHu8" data-phx-static="SFMyNTY.g2gDaAJhBXQAAAADZAAKYXNzaWduX25ld2pkAAVmbGFzaHQAAAAAZAACaWRtAAAAFHBoeC1HT3k4YXhJZUtUT2M4Z1pCbgYAaXv8KqIBYgABUYA.ZkK1NTRF8ZeJdPpW43BS9jSZ6cC-22FDFreSy37egaE"><main>
  
  
<h1>Counter</h1>
<p>Count: <span id="count">0</span></p>
<button id="inc" phx-click="inc">+1 (reply)</button>
<button id="inc-noreply" phx-click="inc_noreply">+1 (no reply)</button>
</main></div>
  </body>
</html>)lv",
    R"lv(_csrf_token=aSQIAQpseAIiIzAgGQo2DA5RP1k2YUtR_Py9Y3OkasyERznJm9YmRR3e&_track_static%5B0%5D=http%3A%2F%2F127.0.0.1%3A4000%2Fassets%2Fphoenix.min.js&_track_static%5B1%5D=http%3A%2F%2F127.0.0.1%3A4000%2Fassets%2Fphoenix_live_view.min.js&_track_static%5B2%5D=http%3A%2F%2F127.0.0.1%3A4000%2Fassets%2Fapp.js&_mounts=0&_live_referer=undefined&vsn=2.0.0)lv",
    {
        {R"lv(load)lv", true, R"lv(["4","4","lv:phx-GOy8axIeKTOc8gZB","phx_join",{"url":"http://127.0.0.1:4000/counter","params":{"_csrf_token":"aSQIAQpseAIiIzAgGQo2DA5RP1k2YUtR_Py9Y3OkasyERznJm9YmRR3e","_track_static":["http://127.0.0.1:4000/assets/phoenix.min.js","http://127.0.0.1:4000/assets/phoenix_live_view.min.js","http://127.0.0.1:4000/assets/app.js"],"_mounts":0},"session":"SFMyNTY.g2gDaAJhBXQAAAAIZAACaWRtAAAAFHBoeC1HT3k4YXhJZUtUT2M4Z1pCZAAMbGl2ZV9zZXNzaW9uaAJkAAdkZWZhdWx0bggApBGxoue47BhkAApwYXJlbnRfcGlkZAADbmlsZAAIcm9vdF9waWRkAANuaWxkAAlyb290X3ZpZXdkABpFbGl4aXIuRGVtb1dlYi5Db3VudGVyTGl2ZWQABnJvdXRlcmQAFUVsaXhpci5EZW1vV2ViLlJvdXRlcmQAB3Nlc3Npb250AAAAAGQABHZpZXdkABpFbGl4aXIuRGVtb1dlYi5Db3VudGVyTGl2ZW4GAGl7_CqiAWIAAVGA.moFgkoi0M1RHMDq9TUgjOvNHEmM6igSyH9-8gvfpHu8","static":"SFMyNTY.g2gDaAJhBXQAAAADZAAKYXNzaWduX25ld2pkAAVmbGFzaHQAAAAAZAACaWRtAAAAFHBoeC1HT3k4YXhJZUtUT2M4Z1pCbgYAaXv8KqIBYgABUYA.ZkK1NTRF8ZeJdPpW43BS9jSZ6cC-22FDFreSy37egaE"}])lv"},
        {R"lv(load)lv", false, R"lv(["4","4","lv:phx-GOy8axIeKTOc8gZB","phx_reply",{"response":{"liveview_version":"0.20.17","rendered":{"0":"","1":"","2":{"0":"0","s":["<h1>Counter</h1>\n<p>Count: <span id=\"count\">","</span></p>\n<button id=\"inc\" phx-click=\"inc\">+1 (reply)</button>\n<button id=\"inc-noreply\" phx-click=\"inc_noreply\">+1 (no reply)</button>"]},"r":1,"s":["<main>\n  ","\n  ","\n","\n</main>"],"t":"Counter"}},"status":"ok"}])lv"},
        {R"lv(click_inc_1)lv", true, R"lv(["4","12","lv:phx-GOy8axIeKTOc8gZB","event",{"type":"click","event":"inc","value":{"value":""}}])lv"},
        {R"lv(click_inc_1)lv", false, R"lv(["4","12","lv:phx-GOy8axIeKTOc8gZB","phx_reply",{"response":{"diff":{"2":{"0":"1"},"r":{"count":1}}},"status":"ok"}])lv"},
        {R"lv(click_inc_noreply)lv", true, R"lv(["4","14","lv:phx-GOy8axIeKTOc8gZB","event",{"type":"click","event":"inc_noreply","value":{"value":""}}])lv"},
        {R"lv(click_inc_noreply)lv", false, R"lv(["4","14","lv:phx-GOy8axIeKTOc8gZB","phx_reply",{"response":{"diff":{"2":{"0":"3"}}},"status":"ok"}])lv"},
    }};

inline const CaptureFlow kPostsNew1x{
    R"lv(127.0.0.1:4001)lv",
    R"lv(<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="csrf-token" content="FwIwCWgkHRUUMi8RZi0lZgwhOichXRYRaswyPNxpVAud6Bj3KcBDd7CU">
    <title data-default="Demo" data-suffix=" · Phoenix Framework">
      New post
     · Phoenix Framework</title>
    <script defer phx-track-static type="text/javascript" src="/assets/phoenix.min.js">
    </script>
    <script defer phx-track-static type="text/javascript" src="/assets/phoenix_live_view.min.js">
    </script>
    <script defer phx-track-static type="text/javascript" src="/assets/app.js">
    </script>
  </head>
  <body>
    <div id="phx-GOy8b8xUjJGTTrSh" data-phx-main data-phx-session="SFMyNTY.g2gDaAJhBnQAAAAIZAACaWRtAAAAFHBoeC1HT3k4Yjh4VWpKR1RUclNoZAARbGl2ZV9zZXNzaW9uX25hbWVkAAdkZWZhdWx0ZAAKcGFyZW50X3BpZGQAA25pbGQACHJvb3RfcGlkZAADbmlsZAAJcm9vdF92aWV3ZAAbRWxpeGlyLkRlbW9XZWIuUG9zdExpdmUuTmV3ZAAGcm91dGVyZAAVRWxpeGlyLkRlbW9XZWIuUm91dGVyZAAHc2Vzc2lvbnQAAAAAZAAEdmlld2QAG0VsaXhpci5EZW1vV2ViLlBvc3RMaXZlLk5ld24GALnK_CqiAWIAAVGA.KIIQVF12K2cBcWk8_B7oMM96WKvpz6OgGvTyLQY9xis" data-phx-static="SFMyNTY.g2gDaAJhBnQAAAADZAAKYXNzaWduX25ld2pkAAVmbGFzaHQAAAAAZAACaWRtAAAAFHBoeC1HT3k4Yjh4VWpKR1RUclNobgYAucr8KqIBYgABUYA.3jrwLoFfEWY5Qewrwa3_-xn7Ucue-lL1OLHpf9W-Wq4"><main>
  
  
  <h1>New post</h1>
<form phx-submit="save" phx-change="validate" id="post-form">
  
  
  
  <label for="post_title">Title</label>
  <input type="text" id="post_title" name="post[title]" value="">
  
  <label for="post_body">Body</label>
  <textarea id="post_body" name="post[body]"></textarea>
  <button type="submit" phx-disable-with="Saving...">Save</button>

</form>
</main></div>
  </body>
</html>)lv",
    R"lv(_csrf_token=FwIwCWgkHRUUMi8RZi0lZgwhOichXRYRaswyPNxpVAud6Bj3KcBDd7CU&_track_static%5B0%5D=http%3A%2F%2F127.0.0.1%3A4001%2Fassets%2Fphoenix.min.js&_track_static%5B1%5D=http%3A%2F%2F127.0.0.1%3A4001%2Fassets%2Fphoenix_live_view.min.js&_track_static%5B2%5D=http%3A%2F%2F127.0.0.1%3A4001%2Fassets%2Fapp.js&_mounts=0&_mount_attempts=0&_live_referer=undefined&vsn=2.0.0)lv",
    {
        {R"lv(load)lv", true, R"lv(["4","4","lv:phx-GOy8b8xUjJGTTrSh","phx_join",{"url":"http://127.0.0.1:4001/posts/new","params":{"_csrf_token":"FwIwCWgkHRUUMi8RZi0lZgwhOichXRYRaswyPNxpVAud6Bj3KcBDd7CU","_track_static":["http://127.0.0.1:4001/assets/phoenix.min.js","http://127.0.0.1:4001/assets/phoenix_live_view.min.js","http://127.0.0.1:4001/assets/app.js"],"_mounts":0,"_mount_attempts":0},"session":"SFMyNTY.g2gDaAJhBnQAAAAIZAACaWRtAAAAFHBoeC1HT3k4Yjh4VWpKR1RUclNoZAARbGl2ZV9zZXNzaW9uX25hbWVkAAdkZWZhdWx0ZAAKcGFyZW50X3BpZGQAA25pbGQACHJvb3RfcGlkZAADbmlsZAAJcm9vdF92aWV3ZAAbRWxpeGlyLkRlbW9XZWIuUG9zdExpdmUuTmV3ZAAGcm91dGVyZAAVRWxpeGlyLkRlbW9XZWIuUm91dGVyZAAHc2Vzc2lvbnQAAAAAZAAEdmlld2QAG0VsaXhpci5EZW1vV2ViLlBvc3RMaXZlLk5ld24GALnK_CqiAWIAAVGA.KIIQVF12K2cBcWk8_B7oMM96WKvpz6OgGvTyLQY9xis","static":"SFMyNTY.g2gDaAJhBnQAAAADZAAKYXNzaWduX25ld2pkAAVmbGFzaHQAAAAAZAACaWRtAAAAFHBoeC1HT3k4Yjh4VWpKR1RUclNobgYAucr8KqIBYgABUYA.3jrwLoFfEWY5Qewrwa3_-xn7Ucue-lL1OLHpf9W-Wq4","sticky":false}])lv"},
        {R"lv(load)lv", false, R"lv(["4","4","lv:phx-GOy8b8xUjJGTTrSh","phx_reply",{"response":{"liveview_version":"1.2.10","rendered":{"0":"","1":"","2":{"0":{"0":" phx-submit=\"save\" phx-change=\"validate\" id=\"post-form\"","1":"","2":"","3":{"0":" for=\"post_title\"","1":" id=\"post_title\"","2":" name=\"post[title]\"","3":" value=\"\"","4":"","5":" for=\"post_body\"","6":" id=\"post_body\"","7":" name=\"post[body]\"","8":"","s":0},"r":1,"s":1},"s":2},"p":{"0":["\n  <label",">Title</label>\n  <input type=\"text\"","","",">\n  ","\n  <label",">Body</label>\n  <textarea","",">","</textarea>\n  <button type=\"submit\" phx-disable-with=\"Saving...\">Save</button>\n"],"1":["<form",">\n  ","\n  ","\n  ","\n</form>"],"2":["<h1>New post</h1>\n",""],"3":["<main>\n  ","\n  ","\n  ","\n</main>"]},"r":1,"s":3,"t":"New post"}},"status":"ok"}])lv"},
        {R"lv(type_blank_title)lv", true, R"lv(["4","12","lv:phx-GOy8b8xUjJGTTrSh","event",{"type":"form","event":"validate","value":"post%5Btitle%5D=+&post%5B_unused_body%5D=&post%5Bbody%5D=","meta":{"_target":"post[title]"},"uploads":{}}])lv"},
        {R"lv(type_blank_title)lv", false, R"lv(["4","12","lv:phx-GOy8b8xUjJGTTrSh","phx_reply",{"response":{"diff":{"2":{"0":{"0":" phx-submit=\"save\" phx-change=\"validate\" id=\"post-form\"","1":"","2":"","3":{"0":" for=\"post_title\"","1":" id=\"post_title\"","2":" name=\"post[title]\"","3":" value=\" \"","4":{"k":{"0":{"0":"can&#39;t be blank"},"kc":1},"s":0},"5":" for=\"post_body\"","6":" id=\"post_body\"","7":" name=\"post[body]\"","8":""}}},"p":{"0":["<p class=\"error\">","</p>"]}}},"status":"ok"}])lv"},
        {R"lv(submit)lv", true, R"lv(["4","24","lv:phx-GOy8b8xUjJGTTrSh","event",{"type":"form","event":"save","value":"post%5Btitle%5D=Golden+post&post%5Bbody%5D=","meta":{}}])lv"},
        {R"lv(submit)lv", false, R"lv(["4",null,"lv:phx-GOy8b8xUjJGTTrSh","diff",{"e":[]}])lv"},
        {R"lv(submit)lv", false, R"lv(["4","24","lv:phx-GOy8b8xUjJGTTrSh","phx_reply",{"response":{"live_redirect":{"flash":"SFMyNTY.g2gDdAAAAAFtAAAABGluZm9tAAAADFBvc3QgY3JlYXRlZG4GAO3S_CqiAWIAAVGA.I8tTbWoXKd32wKw7kkav9lTiNm_kpBM8B3RBW4fEA_o","kind":"push","to":"/posts"}},"status":"ok"}])lv"},
        {R"lv(submit)lv", true, R"lv(["4","25","lv:phx-GOy8b8xUjJGTTrSh","phx_leave",{}])lv"},
        {R"lv(submit)lv", true, R"lv(["28","28","lv:phx-GOy8b8xUjJGTTrSh","phx_join",{"redirect":"http://127.0.0.1:4001/posts","params":{"_csrf_token":"FwIwCWgkHRUUMi8RZi0lZgwhOichXRYRaswyPNxpVAud6Bj3KcBDd7CU","_track_static":["http://127.0.0.1:4001/assets/phoenix.min.js","http://127.0.0.1:4001/assets/phoenix_live_view.min.js","http://127.0.0.1:4001/assets/app.js"],"_mounts":0,"_mount_attempts":0,"_live_referer":"http://127.0.0.1:4001/posts/new"},"session":"SFMyNTY.g2gDaAJhBnQAAAAIZAACaWRtAAAAFHBoeC1HT3k4Yjh4VWpKR1RUclNoZAARbGl2ZV9zZXNzaW9uX25hbWVkAAdkZWZhdWx0ZAAKcGFyZW50X3BpZGQAA25pbGQACHJvb3RfcGlkZAADbmlsZAAJcm9vdF92aWV3ZAAbRWxpeGlyLkRlbW9XZWIuUG9zdExpdmUuTmV3ZAAGcm91dGVyZAAVRWxpeGlyLkRlbW9XZWIuUm91dGVyZAAHc2Vzc2lvbnQAAAAAZAAEdmlld2QAG0VsaXhpci5EZW1vV2ViLlBvc3RMaXZlLk5ld24GALnK_CqiAWIAAVGA.KIIQVF12K2cBcWk8_B7oMM96WKvpz6OgGvTyLQY9xis","static":"SFMyNTY.g2gDaAJhBnQAAAADZAAKYXNzaWduX25ld2pkAAVmbGFzaHQAAAAAZAACaWRtAAAAFHBoeC1HT3k4Yjh4VWpKR1RUclNobgYAucr8KqIBYgABUYA.3jrwLoFfEWY5Qewrwa3_-xn7Ucue-lL1OLHpf9W-Wq4","flash":"SFMyNTY.g2gDdAAAAAFtAAAABGluZm9tAAAADFBvc3QgY3JlYXRlZG4GAO3S_CqiAWIAAVGA.I8tTbWoXKd32wKw7kkav9lTiNm_kpBM8B3RBW4fEA_o","sticky":false}])lv"},
        {R"lv(submit)lv", false, R"lv(["4","4","lv:phx-GOy8b8xUjJGTTrSh","phx_close",{}])lv"},
        {R"lv(submit)lv", false, R"lv(["4","25","lv:phx-GOy8b8xUjJGTTrSh","phx_reply",{"response":{},"status":"ok"}])lv"},
        {R"lv(submit)lv", false, R"lv(["28","28","lv:phx-GOy8b8xUjJGTTrSh","phx_reply",{"response":{"container":["div",{}],"liveview_version":"1.2.10","rendered":{"0":{"0":"Post created","s":0},"1":"","2":{"0":"1","1":{"k":{"0":{"0":"1","1":"Hello Phoenix","2":"First post"},"1":{"0":"2","1":"Channels","2":"Second post"},"kc":2},"s":1},"2":"","3":{"0":" href=\"/posts?page=2\"","1":" data-phx-link-state=\"push\"","2":" id=\"next\"","3":{"s":2},"r":1,"s":3},"4":{"0":" href=\"/posts/new\"","1":" data-phx-link-state=\"push\"","2":" id=\"new\"","3":{"s":4},"r":1,"s":5},"s":6},"p":{"0":["<p id=\"flash-info\" role=\"alert\">","</p>"],"1":["<li id=\"post-","\">",": ","</li>"],"2":["Next"],"3":["<a"," data-phx-link=\"patch\"","",">","</a>"],"4":["New post"],"5":["<a"," data-phx-link=\"redirect\"","",">","</a>"],"6":["<h1>Posts (page <span id=\"page\">","</span>)</h1>\n<ul id=\"posts\">\n  ","\n</ul>\n","\n","\n",""],"7":["<main>\n  ","\n  ","\n  ","\n</main>"]},"r":1,"s":7,"t":"Posts"}},"status":"ok"}])lv"},
    }};

inline const CaptureFlow kPostsNew020{
    R"lv(127.0.0.1:4000)lv",
    R"lv(<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="csrf-token" content="JgkpagpfNTp1MwoqXDFXZgI7ZBE_YwEDmmpG36OQMifplngUTd1su465">
    <title data-suffix=" · Phoenix Framework">
New post
     · Phoenix Framework</title>
    <script defer phx-track-static type="text/javascript" src="/assets/phoenix.min.js">
    </script>
    <script defer phx-track-static type="text/javascript" src="/assets/phoenix_live_view.min.js">
    </script>
    <script defer phx-track-static type="text/javascript" src="/assets/app.js">
    </script>
  </head>
  <body>
<div id="phx-GOy8a-TN0GWc8gZx" data-phx-main data-phx-session="SFMyNTY.g2gDaAJhBXQAAAAIZAACaWRtAAAAFHBoeC1HT3k4YS1UTjBHV2M4Z1p4ZAAMbGl2ZV9zZXNzaW9uaAJkAAdkZWZhdWx0bggApBGxoue47BhkAApwYXJlbnRfcGlkZAADbmlsZAAIcm9vdF9waWRkAANuaWxkAAlyb290X3ZpZXdkABtFbGl4aXIuRGVtb1dlYi5Qb3N0TGl2ZS5OZXdkAAZyb3V0ZXJkABVFbGl4aXIuRGVtb1dlYi5Sb3V0ZXJkAAdzZXNzaW9udAAAAABkAAR2aWV3ZAAbRWxpeGlyLkRlbW9XZWIuUG9zdExpdmUuTmV3bgYAOIn8KqIBYgABUYA.X4-_Uy6AxcrlsNkbrWcmLC5CF-FtZsUBEAIdBLuKInY" data-phx-static="SFMyNTY.g2gDaAJhBXQAAAADZAAKYXNzaWduX25ld2pkAAVmbGFzaHQAAAAAZAACaWRtAAAAFHBoeC1HT3k4YS1UTjBHV2M4Z1p4bgYAOIn8KqIBYgABUYA.W9QoVJGyKDyf_AtmmNSS5IrUPMC2nbPo4Dk1b0_V7lo"><main>
  
  
<h1>New post</h1>
<form id="post-form" phx-change="validate" phx-submit="save">
  
  
  
  <label for="post_title">Title</label>
  <input type="text" id="post_title" name="post[title]" value="">
  
  <label for="post_body">Body</label>
  <textarea id="post_body" name="post[body]"></textarea>
  <button type="submit" phx-disable-with="Saving...">Save</button>

</form>
</main></div>
  </body>
</html>)lv",
    R"lv(_csrf_token=JgkpagpfNTp1MwoqXDFXZgI7ZBE_YwEDmmpG36OQMifplngUTd1su465&_track_static%5B0%5D=http%3A%2F%2F127.0.0.1%3A4000%2Fassets%2Fphoenix.min.js&_track_static%5B1%5D=http%3A%2F%2F127.0.0.1%3A4000%2Fassets%2Fphoenix_live_view.min.js&_track_static%5B2%5D=http%3A%2F%2F127.0.0.1%3A4000%2Fassets%2Fapp.js&_mounts=0&_live_referer=undefined&vsn=2.0.0)lv",
    {
        {R"lv(load)lv", true, R"lv(["4","4","lv:phx-GOy8a-TN0GWc8gZx","phx_join",{"url":"http://127.0.0.1:4000/posts/new","params":{"_csrf_token":"JgkpagpfNTp1MwoqXDFXZgI7ZBE_YwEDmmpG36OQMifplngUTd1su465","_track_static":["http://127.0.0.1:4000/assets/phoenix.min.js","http://127.0.0.1:4000/assets/phoenix_live_view.min.js","http://127.0.0.1:4000/assets/app.js"],"_mounts":0},"session":"SFMyNTY.g2gDaAJhBXQAAAAIZAACaWRtAAAAFHBoeC1HT3k4YS1UTjBHV2M4Z1p4ZAAMbGl2ZV9zZXNzaW9uaAJkAAdkZWZhdWx0bggApBGxoue47BhkAApwYXJlbnRfcGlkZAADbmlsZAAIcm9vdF9waWRkAANuaWxkAAlyb290X3ZpZXdkABtFbGl4aXIuRGVtb1dlYi5Qb3N0TGl2ZS5OZXdkAAZyb3V0ZXJkABVFbGl4aXIuRGVtb1dlYi5Sb3V0ZXJkAAdzZXNzaW9udAAAAABkAAR2aWV3ZAAbRWxpeGlyLkRlbW9XZWIuUG9zdExpdmUuTmV3bgYAOIn8KqIBYgABUYA.X4-_Uy6AxcrlsNkbrWcmLC5CF-FtZsUBEAIdBLuKInY","static":"SFMyNTY.g2gDaAJhBXQAAAADZAAKYXNzaWduX25ld2pkAAVmbGFzaHQAAAAAZAACaWRtAAAAFHBoeC1HT3k4YS1UTjBHV2M4Z1p4bgYAOIn8KqIBYgABUYA.W9QoVJGyKDyf_AtmmNSS5IrUPMC2nbPo4Dk1b0_V7lo"}])lv"},
        {R"lv(load)lv", false, R"lv(["4","4","lv:phx-GOy8a-TN0GWc8gZx","phx_reply",{"response":{"liveview_version":"0.20.17","rendered":{"0":"","1":"","2":{"0":{"0":" id=\"post-form\" phx-change=\"validate\" phx-submit=\"save\"","1":"","2":"","3":{"0":" for=\"post_title\"","1":" id=\"post_title\"","2":" name=\"post[title]\"","3":" value=\"\"","4":"","5":" for=\"post_body\"","6":" id=\"post_body\"","7":" name=\"post[body]\"","8":"","s":["\n  <label",">Title</label>\n  <input type=\"text\"","","",">\n  ","\n  <label",">Body</label>\n  <textarea","",">","</textarea>\n  <button type=\"submit\" phx-disable-with=\"Saving...\">Save</button>\n"]},"r":1,"s":["<form",">\n  ","\n  ","\n  ","\n</form>"]},"s":["<h1>New post</h1>\n",""]},"r":1,"s":["<main>\n  ","\n  ","\n","\n</main>"],"t":"New post"}},"status":"ok"}])lv"},
        {R"lv(type_blank_title)lv", true, R"lv(["4","12","lv:phx-GOy8a-TN0GWc8gZx","event",{"type":"form","event":"validate","value":"post%5Btitle%5D=+&post%5Bbody%5D=&_target=post%5Btitle%5D","uploads":{}}])lv"},
        {R"lv(type_blank_title)lv", false, R"lv(["4","12","lv:phx-GOy8a-TN0GWc8gZx","phx_reply",{"response":{"diff":{"2":{"0":{"0":" id=\"post-form\" phx-change=\"validate\" phx-submit=\"save\"","1":"","2":"","3":{"0":" for=\"post_title\"","1":" id=\"post_title\"","2":" name=\"post[title]\"","3":" value=\" \"","4":{"d":[["can&#39;t be blank"]],"s":["<p class=\"error\">","</p>"]},"5":" for=\"post_body\"","6":" id=\"post_body\"","7":" name=\"post[body]\"","8":""}}}}},"status":"ok"}])lv"},
        {R"lv(submit)lv", true, R"lv(["4","24","lv:phx-GOy8a-TN0GWc8gZx","event",{"type":"form","event":"save","value":"post%5Btitle%5D=Golden+post&post%5Bbody%5D="}])lv"},
        {R"lv(submit)lv", false, R"lv(["4",null,"lv:phx-GOy8a-TN0GWc8gZx","diff",{"e":[]}])lv"},
        {R"lv(submit)lv", false, R"lv(["4","24","lv:phx-GOy8a-TN0GWc8gZx","phx_reply",{"response":{"live_redirect":{"flash":"SFMyNTY.g2gDdAAAAAFtAAAABGluZm9tAAAADFBvc3QgY3JlYXRlZG4GAD6R_CqiAWIAAVGA.undvTpQslpWQvfxmoTeuO4Euargi5Hsjh4HsSTWcv-Q","kind":"push","to":"/posts"}},"status":"ok"}])lv"},
        {R"lv(submit)lv", true, R"lv(["4","25","lv:phx-GOy8a-TN0GWc8gZx","phx_leave",{}])lv"},
        {R"lv(submit)lv", true, R"lv(["28","28","lv:phx-GOy8a-TN0GWc8gZx","phx_join",{"redirect":"http://127.0.0.1:4000/posts","params":{"_csrf_token":"JgkpagpfNTp1MwoqXDFXZgI7ZBE_YwEDmmpG36OQMifplngUTd1su465","_track_static":["http://127.0.0.1:4000/assets/phoenix.min.js","http://127.0.0.1:4000/assets/phoenix_live_view.min.js","http://127.0.0.1:4000/assets/app.js"],"_mounts":0,"_live_referer":"http://127.0.0.1:4000/posts/new"},"session":"SFMyNTY.g2gDaAJhBXQAAAAIZAACaWRtAAAAFHBoeC1HT3k4YS1UTjBHV2M4Z1p4ZAAMbGl2ZV9zZXNzaW9uaAJkAAdkZWZhdWx0bggApBGxoue47BhkAApwYXJlbnRfcGlkZAADbmlsZAAIcm9vdF9waWRkAANuaWxkAAlyb290X3ZpZXdkABtFbGl4aXIuRGVtb1dlYi5Qb3N0TGl2ZS5OZXdkAAZyb3V0ZXJkABVFbGl4aXIuRGVtb1dlYi5Sb3V0ZXJkAAdzZXNzaW9udAAAAABkAAR2aWV3ZAAbRWxpeGlyLkRlbW9XZWIuUG9zdExpdmUuTmV3bgYAOIn8KqIBYgABUYA.X4-_Uy6AxcrlsNkbrWcmLC5CF-FtZsUBEAIdBLuKInY","static":"SFMyNTY.g2gDaAJhBXQAAAADZAAKYXNzaWduX25ld2pkAAVmbGFzaHQAAAAAZAACaWRtAAAAFHBoeC1HT3k4YS1UTjBHV2M4Z1p4bgYAOIn8KqIBYgABUYA.W9QoVJGyKDyf_AtmmNSS5IrUPMC2nbPo4Dk1b0_V7lo","flash":"SFMyNTY.g2gDdAAAAAFtAAAABGluZm9tAAAADFBvc3QgY3JlYXRlZG4GAD6R_CqiAWIAAVGA.undvTpQslpWQvfxmoTeuO4Euargi5Hsjh4HsSTWcv-Q"}])lv"},
        {R"lv(submit)lv", false, R"lv(["4","4","lv:phx-GOy8a-TN0GWc8gZx","phx_close",{}])lv"},
        {R"lv(submit)lv", false, R"lv(["4","25","lv:phx-GOy8a-TN0GWc8gZx","phx_reply",{"response":{},"status":"ok"}])lv"},
        {R"lv(submit)lv", false, R"lv(["28","28","lv:phx-GOy8a-TN0GWc8gZx","phx_reply",{"response":{"container":["div",{}],"liveview_version":"0.20.17","rendered":{"0":{"0":"Post created","s":["<p id=\"flash-info\" role=\"alert\">","</p>"]},"1":"","2":{"0":"1","1":{"d":[["1","Hello Phoenix","First post"],["2","Channels","Second post"]],"s":["<li id=\"post-","\">",": ","</li>"]},"2":"","3":{"0":" href=\"/posts?page=2\"","1":" data-phx-link-state=\"push\"","2":" id=\"next\"","3":{"s":["Next"]},"r":1,"s":["<a"," data-phx-link=\"patch\"","",">","</a>"]},"4":{"0":" href=\"/posts/new\"","1":" data-phx-link-state=\"push\"","2":" id=\"new\"","3":{"s":["New post"]},"r":1,"s":["<a"," data-phx-link=\"redirect\"","",">","</a>"]},"s":["<h1>Posts (page <span id=\"page\">","</span>)</h1>\n<ul id=\"posts\">\n  ","\n</ul>\n","\n","\n",""]},"r":1,"s":["<main>\n  ","\n  ","\n","\n</main>"],"t":"Posts"}},"status":"ok"}])lv"},
    }};

}  // namespace stampede::testing::lv_capture
